import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { needsRoot, skipUnless } from "../../../../test/helpers/env.ts";
import { PathLab } from "./path-lab.ts";
import { parsePing, parseTracepath } from "./reference-tools.ts";

const opts = skipUnless(needsRoot());
let lab: PathLab;

before(async () => {
  if (opts.skip) return;
  lab = await PathLab.create({ routers: 2, ipv6: true, linkMtu: [1500, 1500, 1400] });
});
after(async () => {
  await lab?.destroy();
});

test("A pings B over IPv4 and IPv6 through two routers (TTL drops by two)", opts, async () => {
  for (const family of [4, 6] as const) {
    const { stdout } = await lab.exec("A", "ping", [
      "-c",
      "3",
      "-i",
      "0.01",
      "-W",
      "2",
      lab.address("B", family),
    ]);
    assert.equal(parsePing(stdout).received, 3);
    assert.match(stdout, /ttl=62/);
  }
});

test("tracepath -n shows every hop in order and the 1400 MTU of the R2-B link", opts, async () => {
  for (const family of [4, 6] as const) {
    const { stdout } = await lab.exec("A", "tracepath", ["-n", lab.address("B", family)]);
    const report = parseTracepath(stdout);
    assert.deepEqual(
      report.hops.map((h) => h.ip),
      lab.expectedTrace(family),
      stdout,
    );
    assert.equal(report.pmtu, 1400, stdout);
    assert.equal(report.reached, true);
    assert.equal(lab.pathMtu(), 1400);
  }
});

test("a silenced router is a silent hop; heal makes it answer again", opts, async () => {
  await lab.silenceRouter("R1");
  const silent = parseTracepath(
    (await lab.exec("A", "tracepath", ["-n", "-m", "5", lab.address("B")])).stdout,
  );
  assert.deepEqual(
    silent.hops.map((h) => h.ip),
    ["", ...lab.expectedTrace(4).slice(1)],
  );
  await lab.heal();
  const healed = parseTracepath((await lab.exec("A", "tracepath", ["-n", lab.address("B")])).stdout);
  assert.deepEqual(
    healed.hops.map((h) => h.ip),
    lab.expectedTrace(4),
  );
});

test(
  "dropFragNeeded turns the small link into a black hole; heal brings frag-needed back",
  opts,
  async () => {
    await lab.flushPmtu();
    const big = (family: 4 | 6) =>
      lab
        .execStatus("A", "ping", ["-c", "1", "-W", "1", "-M", "do", "-s", "1452", lab.address("B", family)])
        .then((r) => r.stdout + r.stderr);
    await lab.dropFragNeeded("R2");
    for (const family of [4, 6] as const) {
      const out = await big(family);
      assert.match(out, /0 received/, out);
      assert.doesNotMatch(out, /mtu = 1400|Packet too big|Frag needed/i, out);
      const small = await lab.exec("A", "ping", [
        "-c",
        "1",
        "-W",
        "2",
        "-M",
        "do",
        "-s",
        "1000",
        lab.address("B", family),
      ]);
      assert.equal(parsePing(small.stdout).received, 1);
    }
    await lab.dropFragNeeded("R2", false);
    for (const family of [4, 6] as const) {
      assert.match(await big(family), /mtu = 1400|mtu=1400|Packet too big|Frag needed/i);
    }
    await lab.heal();
  },
);

test("setLinkMtu changes what tracepath finds; heal restores the created MTUs", opts, async () => {
  await lab.setLinkMtu(1, 1300);
  await lab.flushPmtu();
  const low = parseTracepath((await lab.exec("A", "tracepath", ["-n", lab.address("B")])).stdout);
  assert.equal(low.pmtu, 1300);
  await lab.heal();
  await lab.flushPmtu();
  assert.equal(lab.links[1]?.mtu, 1500);
  const back = parseTracepath((await lab.exec("A", "tracepath", ["-n", lab.address("B")])).stdout);
  assert.equal(back.pmtu, 1400);
});

test(
  "loss on A's outbound echo requests: 100 % drops ping, udp still crosses; hop loss hits R1's replies",
  opts,
  async () => {
    await lab.loss("A", 100, "icmp");
    const lost = await lab.execStatus("A", "ping", ["-c", "2", "-i", "0.01", "-W", "1", lab.address("B")]);
    assert.match(lost.stdout, /0 received/);
    const trace = parseTracepath((await lab.exec("A", "tracepath", ["-n", lab.address("B")])).stdout);
    assert.equal(trace.reached, true, "udp traffic is not hit by icmp loss");
    await lab.heal();
    await lab.hopIcmpLoss("R1", 100);
    const r1 = await lab.execStatus("A", "ping", ["-c", "2", "-i", "0.01", "-W", "1", lab.address("R1")]);
    assert.match(r1.stdout, /0 received/);
    const b = await lab.exec("A", "ping", ["-c", "2", "-i", "0.01", "-W", "1", lab.address("B")]);
    assert.equal(parsePing(b.stdout).received, 2, "R1 still forwards");
    await lab.heal();
  },
);

test("create refuses bad plans before touching the machine", async () => {
  await assert.rejects(PathLab.create({ routers: 5 }), /routers must be an integer 0-4/);
  await assert.rejects(
    PathLab.create({ routers: 1, linkMtu: [1500, 1500, 1500] }),
    /3 entries but the path has 2 links/,
  );
  await assert.rejects(PathLab.create({ routers: 1, linkMtu: [1000], ipv6: true }), /IPv6 minimum 1280/);
});
