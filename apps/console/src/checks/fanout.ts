/**
 * Continuous fan-out (spec §2.6, §4.2, §8.1): every enabled check definition becomes an external-check spec on each
 * live agent its projection picks, and the whole assignment is PUT to the controller's /api/v1/external-checks.
 *
 * When: at start, soon after every catalog change, and every `resyncMs` (15 s) regardless. The controller answers an
 * identical body with `changed: 0`, so the periodic re-send costs one request; it is what carries the assignment
 * over a controller restart or a leader change (a standby answers 503 `not the leader`; the next replica the URL
 * reaches gets the body within one period) and onto agents that registered since.
 *
 * Budget: a body is at most `maxBytes` (8 MiB, the controller's limit). Definitions go in oldest first; from the
 * first that does not fit, it and every newer definition are left out whole, and the specs they would have placed
 * are counted in `<prefix>_console_external_specs_skipped_total{reason="over-budget"}` once per send.
 */
import { checkPort, type TopologyAgent } from "@svc/protocol";
import type { ControllerClient } from "../fleet/controller-client.ts";
import type { Ticker } from "../live/ticker.ts";
import type { ConsoleLogger } from "../log.ts";
import type { EnabledDefinition } from "./catalog.ts";
import { project } from "./projection.ts";

/** The controller's external-checks body limit. */
export const EXTERNAL_CHECKS_MAX_BYTES = 8 * 1024 * 1024;
const NS_PER_MS = 1_000_000;

/** One external-check spec (spec §2.6). */
export interface ExternalCheckSpec {
  definitionId: string;
  target: { name: string; kind: "host" | "url"; address: string; port: number };
  checkType: string;
  intervalNs: number;
  timeoutNs: number;
  params: Record<string, unknown>;
}

/** A body to send and what was left out of it. */
export interface FanoutPlan {
  body: { agents: Record<string, ExternalCheckSpec[]> };
  bytes: number;
  /** definitions left out for the budget, newest last */
  leftOut: string[];
  /** specs those definitions would have placed */
  skippedSpecs: number;
}

/** The spec a definition becomes; its port is the one the check dials (checkPort), as every other path's. */
export function specOf(d: EnabledDefinition): ExternalCheckSpec {
  return {
    definitionId: d.check.id,
    target: {
      name: d.target.name,
      kind: d.target.kind,
      address: d.target.address,
      port: checkPort(d.check.type, { kind: "external", port: d.target.port }),
    },
    checkType: d.check.type,
    intervalNs: Math.round(d.check.intervalSeconds * 1000) * NS_PER_MS,
    timeoutNs: Math.round(d.check.timeoutSeconds * 1000) * NS_PER_MS,
    params: d.check.params,
  };
}

const bytes = (s: string) => Buffer.byteLength(s);

/**
 * The body for `defs` (oldest first) over `agents`, at most `maxBytes` long: exact sizes are added up as the body
 * grows, so the serialized body is never over the budget.
 */
export function planFanout(
  defs: readonly EnabledDefinition[],
  agents: readonly TopologyAgent[],
  maxBytes = EXTERNAL_CHECKS_MAX_BYTES,
): FanoutPlan {
  const out: Record<string, ExternalCheckSpec[]> = {};
  let size = bytes('{"agents":{}}');
  let agentCount = 0;
  const leftOut: string[] = [];
  let skippedSpecs = 0;
  for (const d of defs) {
    const p = project(
      { type: d.check.type, params: d.check.params, sources: d.check.sources, targetKind: d.target.kind },
      agents,
    );
    if (p.agents.length === 0) continue;
    if (leftOut.length > 0) {
      leftOut.push(d.check.id);
      skippedSpecs += p.agents.length;
      continue;
    }
    const spec = JSON.stringify(specOf(d));
    let add = 0;
    let newAgents = 0;
    for (const a of p.agents) {
      const list = out[a.id];
      if (list === undefined) {
        // ,"id":[spec]
        add += (agentCount + newAgents > 0 ? 1 : 0) + bytes(JSON.stringify(a.id)) + 3 + bytes(spec);
        newAgents++;
      } else add += 1 + bytes(spec);
    }
    if (size + add > maxBytes) {
      leftOut.push(d.check.id);
      skippedSpecs += p.agents.length;
      continue;
    }
    size += add;
    agentCount += newAgents;
    const s = specOf(d);
    for (const a of p.agents) {
      const list = out[a.id];
      if (list) list.push(s);
      else out[a.id] = [s];
    }
  }
  return { body: { agents: out }, bytes: size, leftOut, skippedSpecs };
}

/** Dependencies of the fan-out. */
export interface FanoutOptions {
  definitions: () => Promise<EnabledDefinition[]>;
  controller: Pick<ControllerClient, "topology" | "putExternalChecks">;
  every: Ticker;
  log: ConsoleLogger;
  /** counts specs left out for the budget */
  skipped: (n: number) => void;
  resyncMs?: number;
  maxBytes?: number;
}

/** Outcome of one send. */
export type FanoutResult =
  | { ok: true; plan: FanoutPlan; answer: { agents: number; changed: number; unknown: string[] } }
  | { ok: false; error: string };

/** Keeps the controller's external-check assignment equal to the enabled definitions. */
export class ExternalFanout {
  private stopTick: (() => void) | undefined;
  private running: Promise<FanoutResult> | undefined;
  private queued: Promise<FanoutResult> | undefined;
  /** the latest send's outcome */
  last: FanoutResult | undefined;

  constructor(private readonly o: FanoutOptions) {}

  start(): void {
    if (this.stopTick) return;
    this.stopTick = this.o.every(this.o.resyncMs ?? 15_000, () => void this.sync());
    void this.sync();
  }

  stop(): Promise<void> {
    this.stopTick?.();
    this.stopTick = undefined;
    return this.settled();
  }

  /**
   * Sends now; when a send is already running, one more follows it (callers arriving meanwhile share that one).
   * Resolves with the outcome of a send that read the catalog after this call.
   */
  sync(): Promise<FanoutResult> {
    if (this.running) {
      this.queued ??= this.running.then(() => {
        this.queued = undefined;
        return this.sync();
      });
      return this.queued;
    }
    this.running = this.once().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Resolves once no send is running or queued. */
  async settled(): Promise<void> {
    while (this.running || this.queued) await (this.queued ?? this.running);
  }

  private async once(): Promise<FanoutResult> {
    let result: FanoutResult;
    try {
      const [defs, topo] = await Promise.all([this.o.definitions(), this.o.controller.topology()]);
      const plan = planFanout(defs, topo.agents, this.o.maxBytes);
      const answer = await this.o.controller.putExternalChecks(plan.body);
      if (plan.skippedSpecs > 0) {
        this.o.skipped(plan.skippedSpecs);
        this.o.log.warn(
          { leftOut: plan.leftOut.length, specs: plan.skippedSpecs, bytes: plan.bytes },
          "external checks over the body budget: newest definitions left out",
        );
      }
      result = { ok: true, plan, answer };
    } catch (e) {
      result = { ok: false, error: e instanceof Error ? e.message : String(e) };
      this.o.log.warn({ err: result.error }, "external-check fan-out failed; retrying");
    }
    this.last = result;
    return result;
  }
}
