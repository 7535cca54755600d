/**
 * Fault drill: the controller SIGKILLed and restarted on the same ports. Three real agent processes are registered
 * and probing each other (tcp and udp every second). The controller is killed, stays down for OUTAGE_MS, and is
 * started again: every agent is registered again within 5 s of the controller answering (agents reconnect as soon
 * as the channel connects, apps/agent/src/grpc/reconnecting-stream.ts), and the probe series have no gap: each
 * agent's /metrics result counter of every peer pair keeps growing through the outage (agents keep probing their
 * last peer list), sampled every 500 ms.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { eventually } from "../../helpers/env.ts";
import { scrape } from "../../helpers/metrics-text.ts";
import { AgentProc, ControllerProc } from "../../helpers/svc-process.ts";

const NAMES = ["node-1", "node-2", "node-3"];
const OUTAGE_MS = 8_000;
/** a counter must grow within this long (probes every 1 s; slack for a loaded machine) */
const MAX_FLAT_MS = 4_000;
const PROTOCOLS = ["tcp", "udp"] as const;

let dir: string;
let controller: ControllerProc;
const agents: AgentProc[] = [];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-drill-controller-kill-"));
  controller = await ControllerProc.start(dir, { controller: { agentTtl: "10s" } });
  for (const n of NAMES) agents.push(await AgentProc.start(dir, n, controller.grpcPort));
  await eventually(
    "all agents registered",
    async () => ((await controller.agents()).length === NAMES.length ? true : undefined),
    30_000,
    100,
  );
});

after(async () => {
  for (const a of agents) await a.stop();
  await controller?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Result counters (all results summed) per `protocol source->destination` of one agent. */
async function counters(a: AgentProc): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const s of await scrape(a.metricsUrl)) {
    const p = PROTOCOLS.find((x) => s.name === `svc_${x}_results_total`);
    if (!p) continue;
    const key = `${p} ${s.labels.source_node}->${s.labels.destination_node}`;
    out.set(key, (out.get(key) ?? 0) + s.value);
  }
  return out;
}

test("controller SIGKILL + restart: fleet back within 5 s, probe counters grow through the outage", async () => {
  // every agent measures both peers on both protocols before the drill
  const expected = NAMES.flatMap((s) =>
    NAMES.filter((d) => d !== s).flatMap((d) => PROTOCOLS.map((p) => `${p} ${s}->${d}`)),
  ).sort();
  await eventually(
    "every pair measured",
    async () => {
      const keys = (await Promise.all(agents.map(counters))).flatMap((m) => [...m.keys()]).sort();
      return expected.every((k) => keys.includes(k)) ? true : undefined;
    },
    30_000,
  );

  // sample every agent's counters every 500 ms for the whole drill
  const samples: { t: number; agent: string; values: Map<string, number> }[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const t = Date.now();
      await Promise.all(
        agents.map(async (a) => {
          try {
            samples.push({ t, agent: a.name, values: await counters(a) });
          } catch (e) {
            samples.push({
              t,
              agent: a.name,
              values: new Map([[`scrape failed: ${String(e)}`, Number.NaN]]),
            });
          }
        }),
      );
      await new Promise((r) => setTimeout(r, 500));
    }
  })();

  await new Promise((r) => setTimeout(r, 2_000));
  const killedAt = Date.now();
  await controller.kill();
  await new Promise((r) => setTimeout(r, OUTAGE_MS));
  const spawnedAt = Date.now();
  controller.spawn();
  await controller.ready();
  const answeredAt = Date.now();
  await eventually(
    "all agents registered again",
    async () => ((await controller.agents()).length === NAMES.length ? true : undefined),
    20_000,
    100,
  );
  const backAt = Date.now();
  console.log(
    `controller answered ${answeredAt - spawnedAt} ms after the restart; fleet back ${backAt - answeredAt} ms after it answered (${backAt - spawnedAt} ms after the restart)`,
  );
  assert.deepEqual(await controller.agents(), NAMES);
  assert.ok(
    backAt - answeredAt <= 5_000,
    `fleet back ${backAt - answeredAt} ms after the controller answered`,
  );

  await new Promise((r) => setTimeout(r, 2_000));
  sampling = false;
  await sampler;

  // no gap: each pair's counter grew at least every MAX_FLAT_MS from before the kill to after the fleet was back
  for (const a of agents) {
    const mine = samples.filter((s) => s.agent === a.name);
    for (const s of mine) assert.ok(![...s.values.values()].some(Number.isNaN), [...s.values.keys()].join());
    const keys = expected.filter((k) => k.includes(` ${a.name}->`));
    for (const key of keys) {
      let lastGrowth = mine[0]?.t ?? killedAt;
      let last = mine[0]?.values.get(key) ?? 0;
      let longestFlat = 0;
      for (const s of mine) {
        const v = s.values.get(key);
        assert.ok(v !== undefined, `${key}: series gone at ${s.t - killedAt} ms after the kill`);
        assert.ok(v >= last, `${key}: counter went back from ${last} to ${v}`);
        if (v > last) {
          longestFlat = Math.max(longestFlat, s.t - lastGrowth);
          lastGrowth = s.t;
          last = v;
        }
      }
      longestFlat = Math.max(longestFlat, (mine.at(-1)?.t ?? 0) - lastGrowth);
      assert.ok(longestFlat <= MAX_FLAT_MS, `${key}: no growth for ${longestFlat} ms during the drill`);
    }
  }
  assert.ok(
    samples.some((s) => s.t > killedAt && s.t < spawnedAt),
    "sampled during the outage",
  );
});
