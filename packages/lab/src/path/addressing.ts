/**
 * The address plan of a path lab. Hops are A, R1..Rn, B; link i joins hop i and hop i+1 (A is hop 0).
 * IPv4: link i of lab `index` is 198.19.(index*8+i).0/24, the left hop .1 and the right hop .2 (198.19.0.0/16 is
 * the half of 198.18.0.0/15 the bridge lab does not use). IPv6: link i is fd00:198:18::(0x100+index):i:0/112,
 * left ::1 and right ::2 — every lab address stays inside fd00:198:18::/64. Namespaces are `svcp<index>-<hop>`.
 */
export const PATH_LAB_MAX_INDEX = 31;
export const PATH_LAB_MAX_ROUTERS = 4;
export const PATH_V4_PREFIX = 24;
export const PATH_V6_PREFIX = 112;
export const PATH_NAMESPACE_RE = /^svcp(\d+)-/;

/** Hop names of a path with `routers` routers: A, R1..Rn, B. */
export function hopNames(routers: number): string[] {
  return ["A", ...Array.from({ length: routers }, (_, i) => `R${i + 1}`), "B"];
}

/** The namespace of a hop, e.g. svcp3-r1. */
export function pathNamespace(index: number, hop: string): string {
  return `svcp${index}-${hop.toLowerCase()}`;
}

/** IPv4 address of one end of a link (`side` 0 = left hop, 1 = right hop). */
export function linkV4(index: number, link: number, side: 0 | 1): string {
  return `198.19.${index * 8 + link}.${side + 1}`;
}

/** The IPv4 subnet of a link. */
export function linkV4Subnet(index: number, link: number): string {
  return `198.19.${index * 8 + link}.0/${PATH_V4_PREFIX}`;
}

/** IPv6 address of one end of a link (`side` 0 = left hop, 1 = right hop). */
export function linkV6(index: number, link: number, side: 0 | 1): string {
  return `fd00:198:18::${(0x100 + index).toString(16)}:${link}:${side + 1}`;
}

/** The IPv6 subnet of a link. */
export function linkV6Subnet(index: number, link: number): string {
  return `fd00:198:18::${(0x100 + index).toString(16)}:${link}:0/${PATH_V6_PREFIX}`;
}

/** Device name of link i inside either hop's namespace. */
export function linkDevice(link: number): string {
  return `l${link}`;
}

/** Checks create() options; returns the per-link MTUs (undefined = kernel default 1500). */
export function validatePlan(
  routers: number,
  linkMtu: readonly number[] | undefined,
  ipv6: boolean,
): (number | undefined)[] {
  if (!Number.isInteger(routers) || routers < 0 || routers > PATH_LAB_MAX_ROUTERS) {
    throw new Error(`routers must be an integer 0-${PATH_LAB_MAX_ROUTERS}, got ${routers}`);
  }
  const links = routers + 1;
  if (linkMtu && linkMtu.length > links) {
    throw new Error(`linkMtu has ${linkMtu.length} entries but the path has ${links} links`);
  }
  const out: (number | undefined)[] = [];
  for (let i = 0; i < links; i++) {
    const mtu = linkMtu?.[i];
    checkMtu(mtu, ipv6, `link ${i}`);
    out.push(mtu);
  }
  return out;
}

/** Throws unless `mtu` is a usable link MTU (IPv6 needs at least 1280). */
export function checkMtu(mtu: number | undefined, ipv6: boolean, what: string): void {
  const min = ipv6 ? 1280 : 576;
  if (mtu !== undefined && (!Number.isInteger(mtu) || mtu < min || mtu > 9000)) {
    throw new Error(`${what} MTU must be ${min}-9000${ipv6 ? " (IPv6 minimum 1280)" : ""}, got ${mtu}`);
  }
}
