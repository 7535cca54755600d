import { advertiseAddressProblem, type RegisterRequest } from "@svc/protocol";
import type { Registration } from "./agent.ts";
import {
  boundedTextProblem,
  capabilitiesProblem,
  type FieldProblem,
  labelsProblem,
  REGISTRATION_LIMITS,
} from "./limits.ts";

/** Outcome of checking a RegisterRequest: the registration, or the field at fault and why. */
export type ValidationResult =
  | { ok: true; value: Registration }
  | { ok: false; field: string; reason: string };

export interface ValidateOptions {
  /** accept loopback advertise addresses (local lab without root) */
  allowLoopback: boolean;
  /** IPv4 prefixes whose directed broadcast address is refused too (see advertiseAddressProblem) */
  knownPrefixes?: readonly string[];
}

const PORT_FIELDS = ["http_port", "udp_port", "metrics_port"] as const;

/** At most this much of a refused value is quoted back in the error message. */
const QUOTE_CHARS = 64;

function quote(value: string): string {
  const shown = value.length > QUOTE_CHARS ? `${value.slice(0, QUOTE_CHARS)}...` : value;
  return JSON.stringify(shown);
}

/**
 * Checks a registration at the gRPC boundary: node name non-empty; every string, the labels and the capabilities
 * within REGISTRATION_LIMITS and free of control characters; advertise address an IP literal that is not
 * unspecified, loopback (unless allowed), link-local, multicast or broadcast, in any IPv6 form of the IPv4
 * address it stands for; each port 0 (not reported) to
 * 65535. Error reasons quote at most 64 characters of a refused value.
 */
export function validateRegistration(req: RegisterRequest, opts: ValidateOptions): ValidationResult {
  const nodeName = (req.node_name ?? "").trim();
  if (nodeName === "") return { ok: false, field: "node_name", reason: "must not be empty" };
  const agentId = (req.agent_id ?? "").trim();
  const zone = (req.zone ?? "").trim();
  const version = req.version ?? "";
  const labels = req.labels ?? {};
  const capabilities = req.capabilities ?? [];
  const L = REGISTRATION_LIMITS;
  const problem: FieldProblem =
    boundedTextProblem("node_name", nodeName, L.nameBytes) ??
    boundedTextProblem("agent_id", agentId, L.nameBytes) ??
    boundedTextProblem("zone", zone, L.zoneBytes) ??
    boundedTextProblem("version", version, L.versionBytes) ??
    labelsProblem(labels) ??
    capabilitiesProblem(capabilities);
  if (problem !== undefined) return { ok: false, ...problem };
  const address = req.advertise_address ?? "";
  const addressProblem = advertiseAddressProblem(address, { knownPrefixes: opts.knownPrefixes ?? [] });
  if (addressProblem !== undefined && !(addressProblem === "loopback" && opts.allowLoopback)) {
    return {
      ok: false,
      field: "advertise_address",
      reason: `${addressProblem} address refused, got ${quote(address)}`,
    };
  }
  for (const field of PORT_FIELDS) {
    const port = req[field] ?? 0;
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      return { ok: false, field, reason: `must be 0-65535, got ${port}` };
    }
  }
  return {
    ok: true,
    value: {
      agentId,
      nodeName,
      address,
      zone,
      // null prototype: a label named __proto__ stays a label
      labels: Object.assign(Object.create(null) as Record<string, string>, labels),
      capabilities: [...capabilities],
      httpPort: req.http_port ?? 0,
      udpPort: req.udp_port ?? 0,
      metricsPort: req.metrics_port ?? 0,
      version,
    },
  };
}
