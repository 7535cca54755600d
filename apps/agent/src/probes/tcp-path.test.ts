import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PathLab } from "@svc/lab";
import { needsRoot, skipUnless } from "../../../../test/helpers/env.ts";
import type { TcpProbeResult } from "./tcp.ts";
import { PATH_PROBE_SCRIPT, type PathPeer, startPathPeer } from "./testdata/path-peer.ts";

// A -> R1 -> B; B runs a TCP listener that closes when it reads EOF; probes run in A.
const opts = skipUnless(needsRoot());
let lab: PathLab;
let peer: PathPeer;

before(async () => {
  if (opts.skip) return;
  lab = await PathLab.create({ routers: 1, ipv6: true });
  peer = await startPathPeer(lab.namespace("B"), 7071);
});
after(async () => {
  peer?.stop();
  await lab?.destroy();
});

const families = [4, 6] as const;
const tcp = (family: 4 | 6, timeoutMs: number, times: number) =>
  lab.runNode<TcpProbeResult[]>("A", PATH_PROBE_SCRIPT, [
    "tcp",
    lab.address("B", family),
    String(peer.port),
    String(timeoutMs),
    String(times),
  ]);

test(
  "across a router: connect and orderly close measured; SYNs dropped at R1 time out; healed, ok again",
  opts,
  async () => {
    for (const family of families) {
      const ok = await tcp(family, 1000, 3);
      for (const r of ok) {
        assert.equal(r.ok, true, `IPv${family}: ${JSON.stringify(r)}`);
        assert.ok(r.connectMs !== undefined && r.connectMs > 0 && r.connectMs < 1000);
        assert.ok(r.totalMs !== undefined && r.totalMs >= r.connectMs);
      }
      await lab.loss("R1", 100, "tcp", lab.address("B", family));
      const [lost] = await tcp(family, 300, 1);
      assert.deepEqual(lost, { ok: false, error: "timeout after 300ms" }, `IPv${family}`);
      await lab.heal();
      const [healed] = await tcp(family, 1000, 1);
      assert.equal(healed?.ok, true, `IPv${family}: ${JSON.stringify(healed)}`);
    }
  },
);
