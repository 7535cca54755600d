import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { CoalescingClock, type ProbeClock, timerClock } from "../clock/probe-clock.ts";
import { createIcmpProber, type IcmpResult } from "./icmp.ts";

const isRoot = process.getuid?.() === 0;
const rootSkip =
  isRoot || process.env.CI === "true" ? false : "needs root (raw ICMP socket, netns, nftables)";
const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));
const nsScript = fileURLToPath(new URL("./testdata/ns-icmp.ts", import.meta.url));

interface NsOutput {
  kind4?: string;
  kind6?: string;
  results: IcmpResult[];
}

function sh(cmd: string, args: string[], input?: string): string {
  return execFileSync(cmd, args, { encoding: "utf8", stdio: "pipe", input, timeout: 20_000 });
}

function runInNs(ns: string, addresses: string[], wrap: string[] = [], env: Record<string, string> = {}) {
  const node = [process.execPath, "--import", "tsx", nsScript, ...addresses];
  const out = execFileSync("ip", ["netns", "exec", ns, ...wrap, ...node], {
    cwd: repoRoot,
    encoding: "utf8",
    timeout: 20_000,
    env: { ...process.env, ...env },
  });
  return JSON.parse(out.trim().split("\n").pop() ?? "{}") as NsOutput;
}

/**
 * A fresh veth drops what is sent before the kernel's link watcher attaches its queue (noop qdisc until then, up to
 * a second later on a busy machine) and the first packets wait on neighbour discovery: iputils ping retries until one
 * echo comes back, so the prober's own three are judged on a link that is up.
 */
function awaitFirstReply(ns: string, address: string): void {
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      execFileSync("ip", ["netns", "exec", ns, "ping", "-n", "-q", "-c", "1", "-W", "1", address], {
        stdio: "pipe",
      });
      return;
    } catch {
      // no reply yet: the link is still coming up
    }
  }
  throw new Error(`${address} never answered iputils ping from ${ns}`);
}

/** Both ways replies are read: as they arrive (plain timers), and at the start of each clock batch. */
const CLOCKS: readonly (readonly [string, () => ProbeClock])[] = [
  ["plain timers (socket watched)", () => timerClock],
  ["a batching clock (socket read per batch)", () => new CoalescingClock()],
];

for (const [via, clock] of CLOCKS) {
  test(`pings 127.0.0.1 and ::1 concurrently over shared sockets, on ${via}`, {
    skip: rootSkip,
  }, async () => {
    const prober = createIcmpProber({ clock: clock() });
    try {
      const [v4, v6, again] = await Promise.all([
        prober.probe({ address: "127.0.0.1", count: 3, timeoutMs: 1000 }),
        prober.probe({ address: "::1", count: 3, timeoutMs: 1000, intervalMs: 5 }),
        prober.probe({ address: "127.0.0.1", count: 2, timeoutMs: 1000 }),
      ]);
      for (const r of [v4, v6, again]) {
        assert.equal(r?.ok, true, JSON.stringify(r));
        assert.equal(r?.lossRatio, 0);
        assert.equal(r?.received, r?.sent);
        assert.ok((r?.rttMs ?? -1) > 0 && (r?.rttMs ?? Infinity) < 1000);
        assert.equal(r?.error, undefined);
      }
      assert.equal(v4?.rtts.length, 3);
      assert.equal(again?.rtts.length, 2);
    } finally {
      prober.close();
    }
  });
}

test("reports bad input and closed prober as data", async () => {
  const prober = createIcmpProber();
  const r = await prober.probe({ address: "not-an-ip", timeoutMs: 100 });
  assert.deepEqual({ ok: r.ok, sent: r.sent, lossRatio: r.lossRatio }, { ok: false, sent: 0, lossRatio: 1 });
  prober.close();
  assert.equal((await prober.probe({ address: "127.0.0.1", timeoutMs: 100 })).error, "prober closed");
});

test("loss 1 to a namespace that drops icmp; dgram sockets when ping_group_range admits us", {
  skip: rootSkip,
}, () => {
  const a = `svcicmpa${process.pid}`;
  const b = `svcicmpb${process.pid}`;
  sh("ip", ["netns", "add", a]);
  sh("ip", ["netns", "add", b]);
  try {
    sh("ip", ["-n", a, "link", "add", "va", "type", "veth", "peer", "name", "vb", "netns", b]);
    sh("ip", ["-n", a, "addr", "add", "198.18.78.1/30", "dev", "va"]);
    sh("ip", ["-n", b, "addr", "add", "198.18.78.2/30", "dev", "vb"]);
    sh("ip", ["-n", a, "addr", "add", "fd00:198:18::78:1/64", "dev", "va", "nodad"]);
    sh("ip", ["-n", b, "addr", "add", "fd00:198:18::78:2/64", "dev", "vb", "nodad"]);
    for (const [ns, dev] of [
      [a, "va"],
      [b, "vb"],
      [a, "lo"],
      [b, "lo"],
    ] as const) {
      sh("ip", ["-n", ns, "link", "set", dev, "up"]);
    }
    const targets = ["198.18.78.2", "fd00:198:18::78:2"];
    for (const t of targets) awaitFirstReply(a, t);
    // Reachable first, from a raw socket (ping_group_range of a new namespace is "1 0": nobody).
    const open = runInNs(a, targets);
    assert.equal(open.kind4, "icmp-raw");
    for (const r of open.results) assert.deepEqual([r.ok, r.lossRatio, r.received], [true, 0, 3]);

    // Unprivileged: without CAP_NET_RAW, with our gid admitted, the prober uses ping sockets.
    sh("ip", ["netns", "exec", a, "sysctl", "-qw", "net.ipv4.ping_group_range=0 2147483647"]);
    const unpriv = runInNs(a, targets, ["capsh", "--drop=cap_net_raw", "--", "-c", 'exec "$0" "$@"'], {
      FORBID_RAW: "1",
    });
    assert.equal(unpriv.kind4, "icmp-dgram");
    assert.equal(unpriv.kind6, "icmp-dgram");
    for (const r of unpriv.results) assert.deepEqual([r.ok, r.lossRatio, r.received], [true, 0, 3]);
    // the same with replies read per clock batch, as the agent reads them
    const batched = runInNs(a, targets, ["capsh", "--drop=cap_net_raw", "--", "-c", 'exec "$0" "$@"'], {
      FORBID_RAW: "1",
      BATCH_CLOCK: "1",
    });
    assert.equal(batched.kind4, "icmp-dgram");
    for (const r of batched.results) assert.deepEqual([r.ok, r.lossRatio, r.received], [true, 0, 3]);

    const rules = [
      "table inet t {",
      "  chain in {",
      "    type filter hook input priority 0",
      "    icmp type echo-request drop",
      "    icmpv6 type echo-request drop",
      "  }",
      "}",
    ];
    sh("ip", ["netns", "exec", b, "nft", "-f", "-"], `${rules.join("\n")}\n`);
    const dropped = runInNs(a, targets);
    const droppedBatched = runInNs(a, targets, [], { BATCH_CLOCK: "1" });
    for (const r of [...dropped.results, ...droppedBatched.results]) {
      assert.equal(r.ok, false);
      assert.equal(r.lossRatio, 1);
      assert.equal(r.sent, 3);
      assert.equal(r.received, 0);
      assert.equal(r.error, "timeout");
    }
  } finally {
    sh("ip", ["netns", "del", a]);
    sh("ip", ["netns", "del", b]);
  }
});
