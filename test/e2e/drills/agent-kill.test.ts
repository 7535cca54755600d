/**
 * Fault drill: an agent SIGKILLed. A controller process with the minimum `controller.agentTtl` (10 s) and two real
 * agent processes (`svc agent --lab-advertise 127.0.0.1`, as `svc lab --no-netns` runs them). The killed agent
 * sends no goodbye: it leaves the topology by TTL (not before ~TTL minus one heartbeat interval, and within TTL
 * plus the sweep's slack), the other stays; started again on the same ports it registers again.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { eventually } from "../../helpers/env.ts";
import { AgentProc, ControllerProc } from "../../helpers/svc-process.ts";

const TTL_MS = 10_000;
/** heartbeats every 5 s: the last one may have landed up to 5 s before the kill */
const EARLIEST_MS = TTL_MS - 5_000;
/** the sweep lands at most a quarter TTL (capped at 1 s) late; slack for a loaded machine */
const LATEST_MS = TTL_MS + 1_000 + 4_000;

let dir: string;
let controller: ControllerProc;
const agents: AgentProc[] = [];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-drill-agent-kill-"));
  controller = await ControllerProc.start(dir, { controller: { agentTtl: "10s" } });
  for (const n of ["node-1", "node-2"]) agents.push(await AgentProc.start(dir, n, controller.grpcPort));
  await eventually(
    "both agents registered",
    async () => ((await controller.agents()).length === 2 ? true : undefined),
    30_000,
    100,
  );
});

after(async () => {
  for (const a of agents) await a.stop();
  await controller?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("a SIGKILLed agent is evicted within the TTL, and registers again when started", async () => {
  const victim = agents[1]!;
  await victim.kill();
  const killed = Date.now();
  await eventually(
    "node-2 evicted",
    async () => ((await controller.agents()).includes("node-2") ? undefined : true),
    LATEST_MS + 5_000,
    100,
  );
  const evictedAfter = Date.now() - killed;
  console.log(`evicted ${evictedAfter} ms after SIGKILL (TTL ${TTL_MS} ms)`);
  assert.ok(evictedAfter >= EARLIEST_MS, `evicted after ${evictedAfter} ms: before the TTL could run out`);
  assert.ok(evictedAfter <= LATEST_MS, `evicted after ${evictedAfter} ms: later than TTL + sweep slack`);
  assert.deepEqual(await controller.agents(), ["node-1"]);

  victim.spawn();
  const restarted = Date.now();
  await victim.ready();
  await eventually(
    "node-2 registered again",
    async () => ((await controller.agents()).includes("node-2") ? true : undefined),
    20_000,
    100,
  );
  console.log(`re-registered ${Date.now() - restarted} ms after the restart`);
  assert.deepEqual(await controller.agents(), ["node-1", "node-2"]);
});
