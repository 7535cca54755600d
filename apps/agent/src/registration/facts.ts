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

/** The re-register backoff lives with the reconnecting stream that also uses it. */
export { type BackoffPolicy, backoffDelay, REGISTER_BACKOFF } from "@svc/controller-client";
