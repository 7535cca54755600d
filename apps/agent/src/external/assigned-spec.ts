import type { ExternalCheckSpecMessage } from "@svc/protocol";

/** Shortest interval the agent runs a spec at, ms (the checkers' floor, spec §8.2). */
export const MIN_EXTERNAL_INTERVAL_MS = 100;
export const EXTERNAL_CHECK_TYPES = ["tcp", "icmp", "dns", "http"] as const;
export type ExternalCheckType = (typeof EXTERNAL_CHECK_TYPES)[number];

/** One spec of the agent's assignment, in the units the agent runs it with. */
export interface AssignedSpec {
  /** identity of the spec: the message's full content */
  key: string;
  definitionId: string;
  target: { name: string; kind: string; address: string; port: number };
  checkType: ExternalCheckType;
  intervalMs: number;
  /** the spec's own timeout, ms (the agent caps it with checkers.external.timeout) */
  timeoutMs: number;
  params: Record<string, unknown>;
}

/**
 * Turns a wire spec into an AssignedSpec, or an error text when the agent cannot run it (the controller validates
 * too; this guards against older or foreign controllers). Interval is floored at 100 ms.
 */
export function assignedSpec(m: ExternalCheckSpecMessage): AssignedSpec | { error: string } {
  const checkType = m.check_type as ExternalCheckType;
  if (!EXTERNAL_CHECK_TYPES.includes(checkType)) return { error: `unsupported checkType ${m.check_type}` };
  const t = m.target;
  if (!t || t.name === "" || t.address === "") return { error: "target needs a name and an address" };
  if (!(m.interval_ns > 0) || !(m.timeout_ns > 0))
    return { error: "intervalNs and timeoutNs must be positive" };
  let params: Record<string, unknown> = {};
  if (m.params_json !== "") {
    try {
      const p: unknown = JSON.parse(m.params_json);
      if (p === null || typeof p !== "object" || Array.isArray(p))
        return { error: "params must be an object" };
      params = p as Record<string, unknown>;
    } catch {
      return { error: "params are not valid JSON" };
    }
  }
  if (checkType === "dns" && (typeof params.query !== "string" || params.query === "")) {
    return { error: "dns needs params.query" };
  }
  return {
    key: JSON.stringify([
      m.definition_id,
      t.name,
      t.kind,
      t.address,
      t.port,
      m.check_type,
      m.interval_ns,
      m.timeout_ns,
      m.params_json,
    ]),
    definitionId: m.definition_id,
    target: { name: t.name, kind: t.kind, address: t.address, port: t.port },
    checkType,
    intervalMs: Math.max(MIN_EXTERNAL_INTERVAL_MS, m.interval_ns / 1e6),
    timeoutMs: Math.max(1, m.timeout_ns / 1e6),
    params,
  };
}

/**
 * The specs to run under `maxTargets`: targets are counted by name in assignment order, and specs of targets past
 * the first `maxTargets` are dropped (returned in `ignored`, for a warning).
 */
export function limitTargets(
  specs: AssignedSpec[],
  maxTargets: number,
): { run: AssignedSpec[]; ignored: AssignedSpec[] } {
  const targets = new Set<string>();
  const run: AssignedSpec[] = [];
  const ignored: AssignedSpec[] = [];
  for (const s of specs) {
    if (!targets.has(s.target.name) && targets.size >= maxTargets) {
      ignored.push(s);
      continue;
    }
    targets.add(s.target.name);
    run.push(s);
  }
  return { run, ignored };
}

/** The host part of a spec's target: the address for `host` targets, the URL's host name for `url` targets. */
export function targetHost(s: AssignedSpec): string | undefined {
  if (s.target.kind !== "url") return s.target.address;
  try {
    return new URL(s.target.address).hostname.replace(/^\[(.*)\]$/, "$1");
  } catch {
    return undefined;
  }
}
