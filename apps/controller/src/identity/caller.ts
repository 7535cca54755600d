import { isIP } from "node:net";
import { cidrContains } from "@svc/core";
import { ipv6Groups } from "@svc/protocol";

/** A pod as a TokenReview and the Pod API describe it (Kubernetes mode). */
export interface ReviewedPod {
  namespace: string;
  name: string;
  uid: string;
  serviceAccount: string;
  nodeName: string;
  /** status.podIPs (status.podIP when the list is empty) */
  podIps: string[];
  /** spec.hostNetwork: the pod's addresses are its node's */
  hostNetwork: boolean;
  /** the node's InternalIP and ExternalIP addresses (read for a host-network pod only; else empty) */
  nodeAddresses: string[];
}

/**
 * Who is calling, as the controller proved it (never as the caller claims): a reviewed pod (Kubernetes mode, the
 * agents' projected ServiceAccount token), a pinned client certificate (external gateway with a client CA), or
 * the connection's source address (everywhere else). `key` is what the registry stores as an agent's owner.
 */
export type CallerIdentity =
  | { kind: "pod"; key: string; peer: string; pod: ReviewedPod }
  | { kind: "certificate"; key: string; peer: string; names: string[] }
  | { kind: "address"; key: string; peer: string };

/** The identity of a caller known by its connection's source address only. */
export function addressIdentity(peer: string): CallerIdentity {
  return { kind: "address", key: `address:${peer}`, peer };
}

/** The identity of a reviewed pod (owner key: its uid, which a recreated pod of the same name does not share). */
export function podIdentity(pod: ReviewedPod, peer: string): CallerIdentity {
  return { kind: "pod", key: `pod:${pod.uid}`, peer, pod };
}

/** The identity of a gateway client pinned by its certificate's names (CN and DNS SANs, case-insensitive). */
export function certificateIdentity(names: readonly string[], peer: string): CallerIdentity {
  const lower = [...new Set(names.map((n) => n.toLowerCase()))].sort();
  return { kind: "certificate", key: `certificate:${lower.join(",")}`, peer, names: lower };
}

/**
 * The source IP of a grpc-js peer string (`1.2.3.4:5`, `::ffff:1.2.3.4:5` and `::1:5` as grpc-js writes them,
 * also `[::1]:5` and an `ipv4:`/`ipv6:` scheme), with an IPv4-mapped IPv6 address unwrapped to its IPv4 form; ""
 * when it is not an IP (e.g. a unix socket).
 */
export function peerIp(peer: string): string {
  const text = peer.replace(/^ipv[46]:/, "");
  if (text.startsWith("[")) return canonicalIp(text.slice(1, text.indexOf("]")));
  const colon = text.lastIndexOf(":");
  return colon < 0 ? canonicalIp(text) : canonicalIp(text.slice(0, colon));
}

/**
 * One spelling per address, so two spellings compare equal: IPv4 as is; IPv6 lower-case, fully expanded and
 * re-compressed by Node's URL parser; an IPv4-mapped IPv6 address as its IPv4 address. "" when not an IP.
 */
export function canonicalIp(text: string): string {
  const family = isIP(text);
  if (family === 4) return text;
  if (family !== 6) return "";
  const g = ipv6Groups(text.toLowerCase());
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) {
    const hi = g[6] ?? 0;
    const lo = g[7] ?? 0;
    return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  }
  return new URL(`http://[${text}]/`).hostname.slice(1, -1);
}

/** True when `ip` lies in one of `cidrs`. */
export function inCidrs(ip: string, cidrs: readonly string[]): boolean {
  return ip !== "" && cidrs.some((c) => cidrContains(c, ip));
}
