import { parseJsonText } from "../api/json-body.ts";
import { InvalidInputError } from "../errors.ts";

/** Probe types a diagnostic may ask for (spec §1). */
export const PROBE_TYPES = ["tcp", "udp", "icmp", "pmtu", "dns", "http", "mtr"] as const;
export type ProbeType = (typeof PROBE_TYPES)[number];

/** Types that may reach an external destination. */
export const EXTERNAL_TYPES: readonly ProbeType[] = ["tcp", "icmp", "mtr"];

/** POST /api/v1/diagnostics body limit (64 KiB). */
export const DIAGNOSTICS_BODY_LIMIT = 65536;
/** `timeout` query: default and maximum, seconds. */
export const DEFAULT_TIMEOUT_S = 60;
export const MAX_TIMEOUT_S = 120;

/** A validated diagnostics request. */
export interface DiagnosticRequest {
  source: string;
  destination: string;
  type: ProbeType;
  destinationKind: "node" | "external";
  /** set for external destinations */
  destinationAddress: string;
  /**
   * optional extension (docs/decisions.md): the external destination's port, 1-65535; 0 when not sent (the check's
   * default port, spec §4.2)
   */
  destinationPort: number;
  /** optional extension: type parameters passed to the agent (dns `query`, http `url`, `method`, ...) */
  params: Record<string, unknown>;
}

/** A parsed body, or why it is refused (the reason is one line; the route answers it as text/plain). */
export type Parsed = { ok: true; value: DiagnosticRequest } | { ok: false; error: InvalidInputError };

const EXTERNAL_INSTEAD: Record<string, string> = {
  udp: 'use destinationKind "node" (udp probes need the destination agent\'s echo server)',
  pmtu: 'use destinationKind "node" (pmtu probes need the destination agent\'s echo server)',
  dns: 'use a continuous external check instead (PUT /api/v1/external-checks with checkType "dns")',
  http: 'use a continuous external check instead (PUT /api/v1/external-checks with checkType "http")',
};

function bad(reason: string): Parsed {
  return { ok: false, error: new InvalidInputError(reason) };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Validates the body (spec §4.2), parsed or as JSON text (parsed with parseJsonText): JSON object; `source`, `destination`, `type` required non-empty strings;
 * `type` one of PROBE_TYPES; `plane` only `pod`; `destinationKind` `node` (default) or `external`; external only
 * for tcp/icmp/mtr (the reason names what to use instead) and with a non-empty `destinationAddress`; optional
 * `destinationPort` (an extension: an integer 1-65535, only with `external`); optional `params` must be an object. Every failure is an InvalidInputError.
 */
export function parseDiagnosticBody(raw: unknown): Parsed {
  let body: unknown = raw;
  if (typeof raw === "string" || Buffer.isBuffer(raw)) {
    try {
      body = parseJsonText(raw.toString());
    } catch (err) {
      if (err instanceof InvalidInputError) return { ok: false, error: err };
      throw err;
    }
  } else if (raw === undefined) {
    return bad("malformed JSON: empty body");
  }
  if (!isRecord(body)) return bad("malformed JSON: body must be an object");
  for (const field of ["source", "destination", "type"] as const) {
    const v = body[field];
    if (v === undefined || v === null || v === "") return bad(`missing ${field}`);
    if (typeof v !== "string") return bad(`${field} must be a string`);
  }
  const type = body.type as string;
  if (!(PROBE_TYPES as readonly string[]).includes(type)) {
    return bad(`invalid type "${type}": one of ${PROBE_TYPES.join(", ")}`);
  }
  if (body.plane !== undefined && body.plane !== "pod") {
    return bad(`invalid plane ${JSON.stringify(body.plane)}: only "pod" is accepted`);
  }
  const kind = body.destinationKind ?? "node";
  if (kind !== "node" && kind !== "external") {
    return bad(`invalid destinationKind ${JSON.stringify(kind)}: "node" or "external"`);
  }
  let address = "";
  if (kind === "external") {
    const instead = EXTERNAL_INSTEAD[type];
    if (instead !== undefined) return bad(`type ${type} cannot reach an external destination: ${instead}`);
    const a = body.destinationAddress;
    if (typeof a !== "string" || a.trim() === "") {
      return bad('destinationAddress is required when destinationKind is "external"');
    }
    address = a.trim();
  }
  const port = body.destinationPort;
  if (port !== undefined) {
    if (kind !== "external")
      return bad(
        "destinationPort is read only with destinationKind \"external\" (a node's port is its agent's)",
      );
    if (typeof port !== "number" || !Number.isInteger(port) || port < 1 || port > 65535)
      return bad(`destinationPort must be an integer 1-65535, got ${JSON.stringify(port).slice(0, 40)}`);
  }
  const params = body.params ?? {};
  if (!isRecord(params)) return bad("params must be an object");
  return {
    ok: true,
    value: {
      source: body.source as string,
      destination: body.destination as string,
      type: type as ProbeType,
      destinationKind: kind,
      destinationAddress: address,
      destinationPort: port ?? 0,
      params,
    },
  };
}

/**
 * The `timeout` query in seconds: a positive number (fractions allowed) up to MAX_TIMEOUT_S; larger values are
 * capped at the maximum; absent, empty, non-numeric, zero or negative values fall back to DEFAULT_TIMEOUT_S.
 */
export function parseTimeoutSeconds(q: unknown): number {
  if (typeof q !== "string" || !/^\d+(\.\d+)?$/.test(q.trim())) return DEFAULT_TIMEOUT_S;
  const n = Number(q);
  if (!Number.isFinite(n) || n <= 0) return DEFAULT_TIMEOUT_S;
  return Math.min(n, MAX_TIMEOUT_S);
}
