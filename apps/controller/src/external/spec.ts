import type { ExternalCheckSpecMessage } from "@svc/protocol";

/** Check types a continuous external check may use (spec §2.6); udp, pmtu and mtr are refused. */
export const EXTERNAL_CHECK_TYPES = ["tcp", "icmp", "dns", "http"] as const;
export type ExternalCheckType = (typeof EXTERNAL_CHECK_TYPES)[number];

/** Target kinds: `host` (address is a host name or IP literal) and `url` (address is an http(s) URL). */
export const EXTERNAL_TARGET_KINDS = ["host", "url"] as const;
export type ExternalTargetKind = (typeof EXTERNAL_TARGET_KINDS)[number];

/** A validated external-check spec (spec §2.6). `params` is always an object ({} when absent). */
export interface ExternalCheckSpec {
  definitionId: string;
  target: { name: string; kind: ExternalTargetKind; address: string; port: number };
  checkType: ExternalCheckType;
  intervalNs: number;
  timeoutNs: number;
  params: Record<string, unknown>;
}

/** JSON with object keys sorted at every depth: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    const obj = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(obj)
        .sort()
        .map((k) => [k, sortKeys(obj[k])]),
    );
  }
  return value;
}

/** The gRPC form of a spec; `params_json` is the canonical JSON of params, "" when params is empty. */
export function specMessage(s: ExternalCheckSpec): ExternalCheckSpecMessage {
  return {
    definition_id: s.definitionId,
    target: { ...s.target },
    check_type: s.checkType,
    interval_ns: s.intervalNs,
    timeout_ns: s.timeoutNs,
    params_json: Object.keys(s.params).length === 0 ? "" : canonicalJson(s.params),
  };
}
