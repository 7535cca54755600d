import {
  hopNames,
  linkDevice,
  linkV4,
  linkV4Subnet,
  linkV6,
  linkV6Subnet,
  pathNamespace,
} from "./addressing.ts";

/** Options of {@link PathLab.create}. */
export interface PathLabOptions {
  /** routers between A and B, 0-4 */
  routers: number;
  /** MTU per link (link i joins hop i and hop i+1; hops are A, R1..Rn, B); missing = 1500 */
  linkMtu?: readonly number[];
  /** also IPv6 addresses and routes (default false) */
  ipv6?: boolean;
  /** keep the kernel's ICMP error rate limits (default false: limits off, so every probe gets its answer) */
  icmpRateLimit?: boolean;
}

/** One end of a link, as seen from the hop that owns it. */
export interface PathLinkEnd {
  link: number;
  /** device name inside the hop's namespace (`l<link>`) */
  device: string;
  v4: string;
  v6?: string;
}

/** A node of the path: A, R1..Rn or B. */
export interface PathHop {
  name: string;
  namespace: string;
  /** the end of the link towards A (absent on A) */
  left?: PathLinkEnd;
  /** the end of the link towards B (absent on B) */
  right?: PathLinkEnd;
}

/** A link between hop `index` and hop `index + 1`. */
export interface PathLink {
  index: number;
  left: string;
  right: string;
  mtu: number;
  v4Subnet: string;
  v6Subnet?: string;
}

export type IpFamily = 4 | 6;

/** Exit code (-1 when killed or not started) and output of a command. */
export interface ExecStatus {
  code: number;
  stdout: string;
  stderr: string;
}

/** The hops and links of lab `index` (pure: addresses per addressing.ts). */
export function planTopology(
  index: number,
  routers: number,
  ipv6: boolean,
  mtus: readonly number[],
): { hops: PathHop[]; links: PathLink[] } {
  const names = hopNames(routers);
  const end = (link: number, side: 0 | 1): PathLinkEnd => ({
    link,
    device: linkDevice(link),
    v4: linkV4(index, link, side),
    ...(ipv6 ? { v6: linkV6(index, link, side) } : {}),
  });
  const hops = names.map((name, h) => ({
    name,
    namespace: pathNamespace(index, name),
    ...(h > 0 ? { left: end(h - 1, 1) } : {}),
    ...(h < names.length - 1 ? { right: end(h, 0) } : {}),
  }));
  const links = mtus.map((mtu, i) => ({
    index: i,
    left: names[i] as string,
    right: names[i + 1] as string,
    mtu,
    v4Subnet: linkV4Subnet(index, i),
    ...(ipv6 ? { v6Subnet: linkV6Subnet(index, i) } : {}),
  }));
  return { hops, links };
}
