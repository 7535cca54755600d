// Fidelity: our icmp prober's RTT median against iputils ping, interleaved on the same 2-router path in the
// same run (issue 3: within 10 % or 50 µs).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { median, PathLab } from "@svc/lab";
import { needsBinary, needsRoot, skipUnless } from "../helpers/env.ts";

const opts = skipUnless(needsRoot(), needsBinary("/usr/bin/ping"));
const PROBE = "bench/fidelity/ns-probe.ts";
let lab: PathLab;

before(async () => {
  if (!opts.skip) lab = await PathLab.create({ routers: 2, ipv6: true });
});
after(async () => {
  await lab?.destroy();
});

for (const family of [4, 6] as const) {
  test(`icmp RTT median over IPv${family} is within 10 % or 50 µs of ping's`, opts, async () => {
    const r = await lab.runNode<{ ours: number[]; ping: number[]; kind: string }>("A", PROBE, [
      "rtt",
      lab.address("B", family),
      "5",
      "10",
    ]);
    assert.ok(
      r.ours.length >= 45 && r.ping.length >= 45,
      `replies: ours ${r.ours.length}, ping ${r.ping.length}`,
    );
    const ours = median(r.ours);
    const ping = median(r.ping);
    const allowed = Math.max(0.1 * ping, 0.05);
    assert.ok(
      Math.abs(ours - ping) <= allowed,
      `ours ${ours.toFixed(3)} ms (${r.kind}) vs ping ${ping.toFixed(3)} ms: off by ${(ours - ping).toFixed(3)} ms, allowed ${allowed.toFixed(3)}`,
    );
  });
}
