import type { ExternalCheckAssignment } from "@svc/protocol";
import { type Logger, silentLogger } from "../logger.ts";
import { canonicalJson, type ExternalCheckSpec, specMessage } from "./spec.ts";

/** A WatchExternalChecks stream as the store sees it. */
export interface AssignmentSubscriber {
  agentId: string;
  send(assignment: ExternalCheckAssignment): void;
  /** ends the stream (controller shutting down) */
  end(): void;
}

/** The answer of a PUT (spec §4.2). */
export interface ReplaceResult {
  /** agents ending with a non-empty assignment */
  agents: number;
  /** agents whose assignment actually changed (and was pushed); 0 for an identical retry */
  changed: number;
  /** ids named in the body that the registry does not know, sorted */
  unknown: string[];
}

export interface ExternalAssignmentsOptions {
  /** whether the registry knows this agent id */
  isKnown: (agentId: string) => boolean;
  logger?: Logger;
}

interface Held {
  specs: ExternalCheckSpec[];
  canonical: string;
}

/**
 * The continuous external-check assignment of every agent, replaced wholesale by each PUT, and fanned out to
 * WatchExternalChecks subscribers: the full assignment on subscribe and again whenever it changes. Spec order
 * within an agent is kept (it is the agent's priority for `maxTargets`) and is part of the comparison.
 * Unknown ids (spec §4.2): one already holding an assignment takes the new specs; named with [] or left out, it is
 * cleared; one holding nothing is not recorded. Known ids are recorded whatever they get.
 */
export class ExternalAssignments {
  readonly #held = new Map<string, Held>();
  readonly #subscribers = new Map<string, Set<AssignmentSubscriber>>();
  readonly #isKnown: (agentId: string) => boolean;
  readonly #logger: Logger;

  constructor(opts: ExternalAssignmentsOptions) {
    this.#isKnown = opts.isKnown;
    this.#logger = opts.logger ?? silentLogger;
  }

  /** Applies a whole desired state; pushes each changed assignment to that agent's subscribers. */
  replace(desired: ReadonlyMap<string, ExternalCheckSpec[]>): ReplaceResult {
    const next = new Map<string, Held>();
    const unknown: string[] = [];
    for (const [id, specs] of desired) {
      const known = this.#isKnown(id);
      if (!known) unknown.push(id);
      if (specs.length === 0) continue;
      if (!known && !this.#held.has(id)) continue;
      next.set(id, { specs, canonical: canonicalJson(specs) });
    }
    const changedIds: string[] = [];
    for (const id of new Set([...this.#held.keys(), ...next.keys()])) {
      if (this.#held.get(id)?.canonical !== next.get(id)?.canonical) changedIds.push(id);
    }
    this.#held.clear();
    for (const [id, h] of next) this.#held.set(id, h);
    for (const id of changedIds) this.#push(id);
    unknown.sort();
    const result = { agents: next.size, changed: changedIds.length, unknown };
    this.#logger.info(result, "external-check assignment replaced");
    return result;
  }

  /** The specs currently assigned to an agent ([] when none). */
  specsOf(agentId: string): ExternalCheckSpec[] {
    return this.#held.get(agentId)?.specs ?? [];
  }

  /** Ids holding a non-empty assignment, sorted. */
  agentIds(): string[] {
    return [...this.#held.keys()].sort();
  }

  /** Adds a subscriber and sends it the current assignment (possibly empty); returns the unsubscribe function. */
  subscribe(sub: AssignmentSubscriber): () => void {
    let set = this.#subscribers.get(sub.agentId);
    if (set === undefined) {
      set = new Set();
      this.#subscribers.set(sub.agentId, set);
    }
    set.add(sub);
    sub.send(this.#assignment(sub.agentId));
    return () => {
      const s = this.#subscribers.get(sub.agentId);
      s?.delete(sub);
      if (s?.size === 0) this.#subscribers.delete(sub.agentId);
    };
  }

  /** Number of open subscriptions. */
  get subscriberCount(): number {
    let n = 0;
    for (const s of this.#subscribers.values()) n += s.size;
    return n;
  }

  /** Ends every open stream (the assignments are kept). */
  close(): void {
    const subs = [...this.#subscribers.values()].flatMap((s) => [...s]);
    this.#subscribers.clear();
    for (const sub of subs) sub.end();
  }

  #assignment(agentId: string): ExternalCheckAssignment {
    return { specs: this.specsOf(agentId).map(specMessage) };
  }

  #push(agentId: string): void {
    const subs = this.#subscribers.get(agentId);
    if (subs === undefined) return;
    const assignment = this.#assignment(agentId);
    for (const sub of subs) sub.send(assignment);
  }
}
