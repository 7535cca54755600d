/**
 * Past topology (the Time Machine, spec §6.1): the newest stored baseline at or before an instant, with the
 * TopologyChanged events after it up to the instant applied in order. Payload changes (controller
 * topology-events.ts): `agent-joined` / `agent-updated` upsert `agent` by id, `agent-left` removes it; `node-joined`
 * / `node-readiness` upsert `node` by name, `node-left` removes it. Without a baseline at or before the instant the
 * rebuild starts from an empty inventory; with neither a baseline nor an event by then, nothing is known
 * (undefined; docs/decisions.md "Event history").
 */
import type { TopologyAgent, TopologyNode, TopologySnapshot } from "@svc/protocol";
import type { EventStore } from "./event-store.ts";

/** TopologyChanged events one rebuild applies at most (baselines are hourly: far more than an hour holds). */
export const REBUILD_MAX_EVENTS = 100_000;

function record(v: unknown): Record<string, unknown> | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;
}

function field(o: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

function strField(o: Record<string, unknown>, key: string): string {
  const v = field(o, key);
  return typeof v === "string" ? v : "";
}

function agentOf(p: Record<string, unknown>): TopologyAgent | undefined {
  const a = record(field(p, "agent"));
  if (!a || strField(a, "id") === "") return undefined;
  const labels = record(field(a, "labels"));
  const caps = field(a, "capabilities");
  const out: TopologyAgent = {
    id: strField(a, "id"),
    nodeName: strField(a, "nodeName"),
    podIP: strField(a, "podIP"),
    zone: strField(a, "zone"),
    capabilities: Array.isArray(caps) ? caps.filter((c): c is string => typeof c === "string") : [],
  };
  if (labels) {
    const l: Record<string, string> = {};
    for (const [k, v] of Object.entries(labels)) if (typeof v === "string") l[k] = v;
    out.labels = l;
  }
  return out;
}

function nodeOf(p: Record<string, unknown>): TopologyNode | undefined {
  const n = record(field(p, "node"));
  if (!n || strField(n, "name") === "") return undefined;
  return { name: strField(n, "name"), zone: strField(n, "zone"), ready: field(n, "ready") === true };
}

/** Applies one TopologyChanged payload to the maps (unknown changes and malformed payloads change nothing). */
export function applyTopologyChange(
  nodes: Map<string, TopologyNode>,
  agents: Map<string, TopologyAgent>,
  payload: Record<string, unknown>,
): void {
  switch (strField(payload, "change")) {
    case "agent-joined":
    case "agent-updated": {
      const a = agentOf(payload);
      if (a) agents.set(a.id, a);
      break;
    }
    case "agent-left": {
      const a = agentOf(payload);
      if (a) agents.delete(a.id);
      break;
    }
    case "node-joined":
    case "node-readiness": {
      const n = nodeOf(payload);
      if (n) nodes.set(n.name, n);
      break;
    }
    case "node-left": {
      const n = nodeOf(payload);
      if (n) nodes.delete(n.name);
      break;
    }
  }
}

/**
 * The topology as of `at` (epoch ms), rebuilt from `store`; its `timestamp` is the instant. Undefined when nothing
 * was stored by then (no baseline and no TopologyChanged event at or before `at`).
 */
export async function topologyAt(store: EventStore, at: number): Promise<TopologySnapshot | undefined> {
  const base = await store.baselineAt(at);
  const nodes = new Map((base?.snapshot.nodes ?? []).map((n) => [n.name, { ...n }]));
  const agents = new Map((base?.snapshot.agents ?? []).map((a) => [a.id, { ...a }]));
  const changes = await store.topologyChanges(base?.at ?? Number.MIN_SAFE_INTEGER, at, REBUILD_MAX_EVENTS);
  if (!base && changes.length === 0) return undefined;
  for (const c of changes) applyTopologyChange(nodes, agents, c.payload);
  const byName = (x: { name: string }, y: { name: string }) =>
    x.name < y.name ? -1 : x.name > y.name ? 1 : 0;
  return {
    nodes: [...nodes.values()].sort(byName),
    agents: [...agents.values()].sort((x, y) => byName({ name: x.nodeName }, { name: y.nodeName })),
    timestamp: new Date(at).toISOString(),
  };
}
