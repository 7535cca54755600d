import { advertiseAddressProblem, type RegisterRequest } from "@svc/protocol";
import type { Registration } from "./agent.ts";

/** Outcome of checking a RegisterRequest: the registration, or the field at fault and why. */
export type ValidationResult =
  | { ok: true; value: Registration }
  | { ok: false; field: string; reason: string };

export interface ValidateOptions {
  /** accept loopback advertise addresses (local lab without root) */
  allowLoopback: boolean;
}

const PORT_FIELDS = ["http_port", "udp_port", "metrics_port"] as const;

/**
 * Checks a registration at the gRPC boundary: node name non-empty; advertise address an IP literal that is not
 * unspecified, loopback (unless allowed), multicast or broadcast; each port 0 (not reported) to 65535.
 */
export function validateRegistration(req: RegisterRequest, opts: ValidateOptions): ValidationResult {
  const nodeName = (req.node_name ?? "").trim();
  if (nodeName === "") return { ok: false, field: "node_name", reason: "must not be empty" };
  const address = req.advertise_address ?? "";
  const problem = advertiseAddressProblem(address);
  if (problem !== undefined && !(problem === "loopback" && opts.allowLoopback)) {
    return { ok: false, field: "advertise_address", reason: `${problem} address refused, got "${address}"` };
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
      agentId: (req.agent_id ?? "").trim(),
      nodeName,
      address,
      zone: (req.zone ?? "").trim(),
      labels: { ...(req.labels ?? {}) },
      capabilities: [...(req.capabilities ?? [])],
      httpPort: req.http_port ?? 0,
      udpPort: req.udp_port ?? 0,
      metricsPort: req.metrics_port ?? 0,
      version: req.version ?? "",
    },
  };
}
