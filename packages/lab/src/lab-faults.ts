/**
 * The faults a running lab holds: applied through nftables and links (faults.ts), plus the two that need the lab's
 * own process: a stopped agent (killed with SIGKILL, as a crash or an OOM kill leaves it: no deregistration; heal
 * starts it again) and a flapping link (its partition put in and taken out every half period until healed).
 * Each is listed, with when it began, for `svc lab status`; heal removes them all.
 */
import {
  applyFault,
  chainRules,
  type Fault,
  type FaultEndpoint,
  FLAP_TABLE,
  healAll,
  removeTable,
} from "./faults.ts";
import type { LabState } from "./state.ts";

/** One fault in place. */
export interface ActiveFault {
  fault: Fault;
  /** ISO instant it was put in place */
  since: string;
}

/** What the faults need of the lab. */
export interface LabFaultHost {
  endpoints(): Map<string, FaultEndpoint>;
  stopAgent(name: string): Promise<void>;
  startAgent(name: string): Promise<void>;
  /** called after every change (the lab rewrites its state) */
  changed(): void;
  now?: () => number;
}

/** The words `svc lab fault` takes for a fault (how status lists it). */
export function faultWords(f: Fault): string {
  switch (f.kind) {
    case "drop":
      return `drop ${f.from} ${f.to} ${f.protocol}`;
    case "loss":
      return `loss ${f.from} ${f.to} ${f.percent} ${f.protocol}`;
    case "partition":
      return `partition ${f.a} ${f.b}`;
    case "mtu":
      return `mtu ${f.node} ${f.bytes}`;
    case "blackhole":
      return `blackhole ${f.from} ${f.to} ${f.bytes}`;
    case "hoploss":
      return `hoploss ${f.node} ${f.percent}`;
    case "isolate":
      return `isolate ${f.node} ${f.direction}`;
    case "down":
      return `down ${f.node} ${f.what}`;
    case "zones":
      return `zones ${f.a} ${f.b}`;
    case "block":
      return `block ${f.node} ${f.protocol} ${f.direction}`;
    case "flap":
      return `flap ${f.a} ${f.b} ${f.periodSeconds}`;
    case "linkloss":
      return `loss ${f.node} ${f.percent}`;
  }
}

/** The faults of one running lab. */
export class LabFaults {
  private readonly active: ActiveFault[] = [];
  private readonly stopped = new Set<string>();
  private readonly flappers: { stop(): void }[] = [];
  private busy: Promise<unknown> = Promise.resolve();

  constructor(private readonly host: LabFaultHost) {}

  /** The faults in place, oldest first. */
  list(): readonly ActiveFault[] {
    return this.active;
  }

  /** Puts a fault in place (one change at a time: a heal never runs beside an injection). */
  inject(fault: Fault): Promise<void> {
    return this.serial(async () => {
      const nodes = this.host.endpoints();
      if (fault.kind === "down" && fault.what === "agent") {
        if (!nodes.has(fault.node))
          throw new Error(`unknown lab node "${fault.node}" (nodes: ${[...nodes.keys()].join(", ")})`);
        if (this.stopped.has(fault.node)) throw new Error(`${fault.node}'s agent is stopped already`);
        await this.host.stopAgent(fault.node);
        this.stopped.add(fault.node);
      } else if (fault.kind === "flap") {
        chainRules(fault, nodes); // refuses unknown nodes before anything starts
        this.flappers.push(this.flapper(fault, nodes));
      } else {
        await applyFault(fault, nodes);
      }
      this.active.push({ fault, since: new Date(this.host.now?.() ?? Date.now()).toISOString() });
      this.host.changed();
    });
  }

  /** Removes every fault: rules, links, flapping links, and starts every stopped agent again. */
  heal(): Promise<void> {
    return this.serial(async () => {
      for (const f of this.flappers.splice(0)) f.stop();
      const nodes = this.host.endpoints();
      await healAll(this.namespaces(nodes));
      for (const name of [...this.stopped]) {
        await this.host.startAgent(name);
        this.stopped.delete(name);
      }
      this.active.length = 0;
      this.host.changed();
    });
  }

  /** Stops the flapping links (the lab is going away; its namespaces go with it). */
  stop(): void {
    for (const f of this.flappers.splice(0)) f.stop();
  }

  /** The faults as the lab's state lists them. */
  stateEntries(): NonNullable<LabState["faults"]> {
    return this.active.map((a) => ({ words: faultWords(a.fault), since: a.since }));
  }

  private namespaces(nodes: Map<string, FaultEndpoint>): string[] {
    return [...nodes.values()].map((n) => n.namespace).filter((n) => n !== "");
  }

  /** Partition on at once for half a period, off for the other half, and so on until stopped. */
  private flapper(
    fault: Extract<Fault, { kind: "flap" }>,
    nodes: Map<string, FaultEndpoint>,
  ): { stop(): void } {
    let on = false;
    let stopped = false;
    const half = (fault.periodSeconds * 1000) / 2;
    const toggle = async () => {
      if (stopped) return;
      on = !on;
      if (on) await applyFault(fault, nodes, FLAP_TABLE);
      else await removeTable(this.namespaces(nodes), FLAP_TABLE);
    };
    const timer = setInterval(() => {
      this.busy = this.busy.then(toggle).catch(() => undefined);
    }, half);
    this.busy = this.busy.then(toggle).catch(() => undefined);
    return {
      stop() {
        stopped = true;
        clearInterval(timer);
      },
    };
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.busy.then(fn, fn);
    this.busy = next.catch(() => undefined);
    return next;
  }
}

/**
 * Injects a fault into the lab described by `state` from another process, without the lab's control listener
 * (network faults only: a stopped agent and a flapping link need the running lab).
 */
export async function injectFault(state: LabState, fault: Fault): Promise<void> {
  if (!state.netns) throw new Error("faults need the network-namespace lab (run `svc lab` as root)");
  await applyFault(fault, endpoints(state));
}

/** Heals every network fault of the lab described by `state` (see injectFault). */
export async function healLab(state: LabState): Promise<void> {
  if (!state.netns) return;
  await healAll(state.nodes.map((n) => n.namespace));
}

/** What the fault rules need of each node of a lab. */
export function endpoints(state: LabState): Map<string, FaultEndpoint> {
  return new Map(
    state.nodes.map((n) => [
      n.name,
      { namespace: n.namespace, address: n.address, tcpPort: n.tcpPort, udpPort: n.udpPort, zone: n.zone },
    ]),
  );
}
