import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PathLab, parseTracepath } from "@svc/lab";
import { needsRoot, skipUnless } from "../../../../test/helpers/env.ts";
import type { MtrResult } from "./mtr.ts";
import type { PmtuResult } from "./pmtu.ts";
import { PATH_PROBE_SCRIPT, type PathPeer, runWithoutNetRaw, startPathPeer } from "./testdata/path-peer.ts";

interface AllProbes {
  tcp: boolean;
  udp: number;
  icmp: number;
  icmpKind: string;
  pmtu: PmtuResult;
  mtr: MtrResult;
}

// A -> R1 -> B, link R1-B at MTU 1400. The agent's echo server runs in B; probes run in A.
const opts = skipUnless(needsRoot());
let lab: PathLab;
let peer: PathPeer;

before(async () => {
  if (opts.skip) return;
  lab = await PathLab.create({ routers: 1, linkMtu: [1500, 1400], ipv6: true });
  peer = await startPathPeer(lab.namespace("B"), 7070);
});
after(async () => {
  peer?.stop();
  await lab?.destroy();
});

const families = [4, 6] as const;
const pmtu = (family: 4 | 6, times = 1, size = 0) =>
  lab.runNode<PmtuResult[]>("A", PATH_PROBE_SCRIPT, [
    "pmtu",
    lab.address("B", family),
    String(peer.port),
    "500",
    String(size),
    String(times),
  ]);

test(
  "R1-B at MTU 1400 reads reduced, pmtu_bytes equal to tracepath's pmtu, also with the PMTU cached",
  opts,
  async () => {
    for (const family of families) {
      await lab.flushPmtu();
      // the second run starts with the kernel's learned 1400 in A's route cache
      const [first, second] = await pmtu(family, 2);
      const expected = { reading: "reduced", ok: true, probeBytes: 1500, pmtuBytes: 1400 };
      assert.deepEqual(first, expected, `IPv${family}`);
      assert.deepEqual(second, expected, `IPv${family} with the PMTU cached`);
      await lab.flushPmtu();
      const trace = parseTracepath(
        (await lab.exec("A", "tracepath", ["-n", lab.address("B", family)])).stdout,
      );
      assert.equal(first?.pmtuBytes, trace.pmtu, `IPv${family} tracepath pmtu`);
    }
  },
);

test(
  "frag-needed dropped at R1 reads blackhole at the largest size that crosses (the link MTU); heal reads reduced/ok again",
  opts,
  async () => {
    try {
      await lab.dropFragNeeded("R1");
      for (const family of families) {
        const [r] = await pmtu(family);
        assert.equal(r?.reading, "blackhole", `IPv${family}: ${JSON.stringify(r)}`);
        assert.equal(r?.ok, false);
        assert.equal(r?.probeBytes, 1500);
        // the search found the largest size that crosses: the R1-B link's MTU, what tracepath reads when healed
        assert.equal(r?.pmtuBytes, 1400, "the largest size that crosses");
        assert.match(r?.error ?? "", /1400 bytes is the largest size that crosses/);
      }
      await lab.heal(); // frag-needed flows again, link still at 1400; no cache flush (the agent cannot either)
      for (const family of families) {
        const [r] = await pmtu(family);
        assert.equal(r?.reading, "reduced", `IPv${family} healed: ${JSON.stringify(r)}`);
        assert.equal(r?.pmtuBytes, 1400);
      }
      await lab.setLinkMtu(1, 1500); // the bottleneck goes away; A still has 1400 cached
      for (const family of families) {
        const [r] = await pmtu(family);
        assert.deepEqual(r, { reading: "ok", ok: true, probeBytes: 1500, pmtuBytes: 1500 }, `IPv${family}`);
      }
    } finally {
      await lab.heal();
    }
  },
);

test("a configured size above the egress MTU reads reduced at what the path carries", opts, async () => {
  for (const family of families) {
    const [r] = await pmtu(family, 1, 9000);
    assert.equal(r?.reading, "reduced", JSON.stringify(r));
    assert.equal(r?.probeBytes, 9000);
    assert.equal(r?.pmtuBytes, 1400);
  }
});

test(
  "without CAP_NET_RAW (ping_group_range admits root): tcp, udp, icmp, pmtu and mtr all work, IPv4 and IPv6",
  opts,
  async () => {
    for (const family of families) {
      const r = await runWithoutNetRaw<AllProbes>(
        (cmd, args) => lab.exec("A", cmd, args),
        ["all", lab.address("B", family), String(peer.port)],
      );
      assert.deepEqual(
        {
          tcp: r.tcp,
          udp: r.udp,
          icmp: r.icmp,
          icmpKind: r.icmpKind,
          pmtu: [r.pmtu.reading, r.pmtu.pmtuBytes],
          mtr: r.mtr.hops.map((h) => h.ip),
        },
        {
          tcp: true,
          udp: 3,
          icmp: 3,
          icmpKind: "icmp-dgram",
          pmtu: ["reduced", 1400],
          mtr: lab.expectedTrace(family),
        },
        `IPv${family}`,
      );
    }
    // and the raw fallback really is gone in that process
    await assert.rejects(
      runWithoutNetRaw((cmd, args) => lab.exec("A", cmd, args), ["rawcheck", lab.address("B")]),
      /EPERM/,
    );
  },
);
