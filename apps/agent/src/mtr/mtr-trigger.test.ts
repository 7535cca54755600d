import assert from "node:assert/strict";
import { test } from "node:test";
import { ProbeMetrics } from "../metrics/probe-metrics.ts";
import type { MtrResult } from "../probes/mtr.ts";
import { MTR_MAX_CONCURRENT, MtrTrigger } from "./mtr-trigger.ts";

test("at most MTR_MAX_CONCURRENT traces run at once; a refused failure does not start the cooldown", async () => {
  const metrics = new ProbeMetrics({ prefix: "svc", source: { nodeName: "me", zone: "z" } });
  const finish: (() => void)[] = [];
  const trigger = new MtrTrigger({
    metrics,
    config: { cooldown: 60_000, maxHops: 30 },
    probe: (t) =>
      new Promise<MtrResult>((resolve) =>
        finish.push(() => resolve({ target: t.address, hops: [], ok: true })),
      ),
  });
  const peer = (i: number) => ({ nodeName: `p${i}`, zone: "z", address: `198.18.0.${i}` });
  const started = Array.from({ length: 10 }, (_, i) => trigger.onProbeFailure(peer(i + 1)));
  assert.equal(started.filter(Boolean).length, MTR_MAX_CONCURRENT);
  assert.equal(trigger.running().length, MTR_MAX_CONCURRENT);
  const text = await metrics.registry.metrics();
  assert.equal(
    text.match(/svc_mtr_triggered_total\{/g)?.length,
    MTR_MAX_CONCURRENT,
    "refused failures are not counted",
  );
  finish.shift()?.();
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(trigger.onProbeFailure(peer(10)), true, "p10 was refused earlier, so it may trace now");
  assert.equal(trigger.onProbeFailure(peer(1)), false, "p1 traced: its cooldown holds");
  for (const f of finish.splice(0)) f();
  await trigger.stop();
});
