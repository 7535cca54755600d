import type { TopologySection } from "@svc/core";
import type { AgentRegistry } from "../registry/registry.ts";
import { planOptionsFromConfig } from "./options.ts";
import { planProbes } from "./plan.ts";
import { plannedTargets, planToJson } from "./plan-json.ts";
import type { ProbePlan } from "./types.ts";

/**
 * The probe plan in force for the registered agents. Registry changes only mark the plan stale; it is recomputed
 * on the next read (the peer broadcaster's debounced flush, a topology request), so a burst of 5000
 * registrations costs one plan, not 5000. Each recomputation passes the previous plan so a join or leave changes
 * as few assignments as possible.
 */
export class PlanState {
  readonly #registry: AgentRegistry;
  #topology: TopologySection;
  #plan: ProbePlan | undefined;
  #stale = true;

  constructor(registry: AgentRegistry, topology: TopologySection) {
    this.#registry = registry;
    this.#topology = topology;
    registry.onChange(() => {
      this.#stale = true;
    });
  }

  /** Hot reload of `topology.*`: the plan is recomputed on the next read. */
  setTopology(topology: TopologySection): void {
    this.#topology = topology;
    this.#stale = true;
  }

  /** The plan (undefined = full mesh: every pair intended). */
  current(): ProbePlan | undefined {
    if (this.#stale) {
      this.#stale = false;
      const nodes = this.#registry.list().map((a) => ({ name: a.nodeName, zone: a.zone }));
      this.#plan = planProbes(nodes, planOptionsFromConfig(this.#topology), this.#plan);
    }
    return this.#plan;
  }

  /** Node names `source` is planned to probe; undefined in full mesh. */
  plannedFor(source: string): string[] | undefined {
    return plannedTargets(this.current(), source);
  }

  /** `probePlan` of the topology snapshot; undefined (key absent) in full mesh. */
  snapshot(): Record<string, string[]> | undefined {
    const plan = this.current();
    return plan === undefined ? undefined : planToJson(plan);
  }
}
