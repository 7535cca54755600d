import type { NetworkInterfaceInfo } from "node:os";
import type { Checkers } from "@svc/core";
import {
  advertiseAddressProblem,
  EXTERNAL_CHECKS_CAPABILITY,
  LABEL_EXTERNAL,
  LABEL_HOST_NETWORK,
  type Plane,
} from "@svc/protocol";

/** Environment variables the agent reads for its registration facts. */
export interface RegistrationEnv {
  SVC_POD_IP?: string;
  SVC_POD_NAME?: string;
  SVC_HOST_NETWORK?: string;
}

export interface AdvertiseAddressInput {
  /** `agent.advertiseAddress`; empty = not configured */
  configured: string;
  env: RegistrationEnv;
  /** os.networkInterfaces() */
  interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>;
  /** accept loopback (local lab without root) */
  allowLoopback?: boolean;
}

/**
 * The address this agent advertises: `agent.advertiseAddress`, else env SVC_POD_IP, else the first non-internal
 * IPv4 of the interfaces (in the order given). Throws (misconfiguration) when none is found or the chosen one is
 * unspecified, loopback (unless allowed), multicast, broadcast or not an IP literal; the message names its source.
 */
export function resolveAdvertiseAddress(input: AdvertiseAddressInput): string {
  let address: string | undefined;
  let source: string;
  if (input.configured.trim() !== "") {
    address = input.configured.trim();
    source = "agent.advertiseAddress";
  } else if ((input.env.SVC_POD_IP ?? "").trim() !== "") {
    address = (input.env.SVC_POD_IP ?? "").trim();
    source = "SVC_POD_IP";
  } else {
    source = "autodetect";
    for (const infos of Object.values(input.interfaces)) {
      const hit = (infos ?? []).find((i) => i.family === "IPv4" && !i.internal);
      if (hit) {
        address = hit.address;
        break;
      }
    }
    if (address === undefined) {
      throw new Error(
        "agent.advertiseAddress: not set, SVC_POD_IP empty, and no non-internal IPv4 interface found",
      );
    }
  }
  const problem = advertiseAddressProblem(address);
  if (problem !== undefined && !(problem === "loopback" && input.allowLoopback)) {
    throw new Error(`agent.advertiseAddress: ${problem} address refused, got "${address}" (from ${source})`);
  }
  return address;
}

/**
 * Labels the agent stamps on its registration (spec §2.2): `svc.io/external=true` when not running in a pod
 * (no SVC_POD_NAME), `svc.io/host-network=true` when SVC_HOST_NETWORK is `true`.
 */
export function registrationLabels(env: RegistrationEnv): Record<string, string> {
  const labels: Record<string, string> = {};
  if ((env.SVC_POD_NAME ?? "") === "") labels[LABEL_EXTERNAL] = "true";
  if ((env.SVC_HOST_NETWORK ?? "").toLowerCase() === "true") labels[LABEL_HOST_NETWORK] = "true";
  return labels;
}

const CHECKER_PLANES = ["tcp", "udp", "icmp", "pmtu", "dns", "http"] as const satisfies readonly Plane[];

/**
 * Capabilities from the checkers config: `plane:<type>` per enabled checker, `plane:mtr` always, then
 * `external-checks` when checkers.external.enabled.
 */
export function capabilitiesFor(checkers: Checkers): string[] {
  const caps: string[] = CHECKER_PLANES.filter((p) => checkers[p].enabled).map((p) => `plane:${p}`);
  caps.push("plane:mtr");
  if (checkers.external.enabled) caps.push(EXTERNAL_CHECKS_CAPABILITY);
  return caps;
}

export interface BackoffPolicy {
  /** first delay, ms (spec: 2 s) */
  initialMs: number;
  /** cap, ms (spec: 30 s) */
  maxMs: number;
  /** fraction taken off at random, 0-1 (spec: up to 25%) */
  jitter: number;
}

/** The spec's re-register backoff: 2 s doubling to 30 s, up to 25% jitter. */
export const REGISTER_BACKOFF: BackoffPolicy = { initialMs: 2000, maxMs: 30_000, jitter: 0.25 };

/**
 * Delay before retry number `attempt` (0 = first retry): min(max, initial * 2^attempt), less up to `jitter` of
 * it at random (`random` in [0, 1)), so it never exceeds the cap.
 */
export function backoffDelay(
  attempt: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  const base = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(attempt, 30));
  return Math.round(base * (1 - policy.jitter * random()));
}
