import { destroyAllPathLabs } from "./build-path.ts";
import { PATH_LOSS_PROTOCOLS, type PathLossProtocol } from "./path-faults.ts";
import { PathLab } from "./path-lab.ts";

/** Usage of `svc lab path ...` (the lead wires it into the CLI's lab command). */
export const PATH_LAB_USAGE = `  svc lab path up [--routers N] [--mtu M0,M1,...] [--ipv6]
      build namespaces A - R1..Rn - B (svcp<I>-*), link i joins hop i and i+1; prints the lab index I
  svc lab path show I                                  hops, addresses, link MTUs
  svc lab path fault I mtu LINK BYTES                  LINK = number or hop pair like R1-B
  svc lab path fault I blackhole ROUTER [off]          ROUTER drops its frag-needed / packet-too-big
  svc lab path fault I hoploss ROUTER PERCENT          loss on ROUTER's time-exceeded and echo replies
  svc lab path fault I silence ROUTER [off]            ROUTER answers no ICMP at all
  svc lab path fault I loss HOP PERCENT [tcp|udp|icmp|all] [TO_ADDRESS]
  svc lab path heal I                                  remove faults, restore created MTUs
  svc lab path down I|--all`;

/** A `svc lab path fault` word list, parsed. */
export type PathFault =
  | { kind: "mtu"; link: string; bytes: number }
  | { kind: "blackhole"; router: string; on: boolean }
  | { kind: "hoploss"; router: string; percent: number }
  | { kind: "silence"; router: string; on: boolean }
  | { kind: "loss"; hop: string; percent: number; protocol: PathLossProtocol; to?: string };

const percentOf = (w: string | undefined, usage: string): number => {
  const p = Number(w);
  if (w === undefined || !Number.isFinite(p) || p < 0 || p > 100)
    throw new Error(`usage: ${usage} (PERCENT 0-100)`);
  return p;
};

/** Parses the words after `fault I`. */
export function parsePathFault(words: readonly string[]): PathFault {
  const [kind, a, b, c, d] = words;
  switch (kind) {
    case "mtu": {
      const bytes = Number(b);
      if (!a || !Number.isInteger(bytes)) throw new Error("usage: mtu LINK BYTES");
      return { kind, link: a, bytes };
    }
    case "blackhole":
    case "silence":
      if (!a || (b !== undefined && b !== "off")) throw new Error(`usage: ${kind} ROUTER [off]`);
      return { kind, router: a, on: b !== "off" };
    case "hoploss":
      if (!a) throw new Error("usage: hoploss ROUTER PERCENT");
      return { kind, router: a, percent: percentOf(b, "hoploss ROUTER PERCENT") };
    case "loss": {
      if (!a) throw new Error("usage: loss HOP PERCENT [tcp|udp|icmp|all] [TO]");
      const protocol = (c ?? "all") as PathLossProtocol;
      if (!PATH_LOSS_PROTOCOLS.includes(protocol))
        throw new Error(`protocol must be one of ${PATH_LOSS_PROTOCOLS.join(", ")}`);
      const percent = percentOf(b, "loss HOP PERCENT");
      return d === undefined
        ? { kind, hop: a, percent, protocol }
        : { kind, hop: a, percent, protocol, to: d };
    }
    default:
      throw new Error(`unknown path fault "${kind ?? ""}": use mtu, blackhole, hoploss, silence or loss`);
  }
}

/** Resolves a link word: its number, or the pair of hops it joins ("R1-B", either order). */
export function resolveLink(lab: PathLab, word: string): number {
  if (/^\d+$/.test(word) && lab.links[Number(word)]) return Number(word);
  const [x, y] = word.toUpperCase().split("-");
  const link = lab.links.find((l) => (l.left === x && l.right === y) || (l.left === y && l.right === x));
  if (!link)
    throw new Error(
      `no link "${word}": links are ${lab.links.map((l) => `${l.index} (${l.left}-${l.right})`).join(", ")}`,
    );
  return link.index;
}

/** Applies a parsed fault to a lab. */
export async function applyPathFault(lab: PathLab, f: PathFault): Promise<void> {
  switch (f.kind) {
    case "mtu":
      return lab.setLinkMtu(resolveLink(lab, f.link), f.bytes);
    case "blackhole":
      return lab.dropFragNeeded(f.router, f.on);
    case "hoploss":
      return lab.hopIcmpLoss(f.router, f.percent);
    case "silence":
      return lab.silenceRouter(f.router, f.on);
    case "loss":
      return lab.loss(f.hop, f.percent, f.protocol, f.to);
  }
}

/** Human-readable lines describing a lab (for `up` and `show`). */
export function describePathLab(lab: PathLab): string[] {
  const lines = [
    `path lab ${lab.index}: ${lab.hops.map((h) => h.name).join(" - ")}${lab.ipv6 ? " (IPv4 + IPv6)" : ""}`,
  ];
  for (const h of lab.hops) {
    const ends = [h.left, h.right].filter((e) => e !== undefined);
    lines.push(
      `  ${h.name.padEnd(3)} ${h.namespace.padEnd(10)} ${ends.map((e) => `${e.device} ${e.v4}${e.v6 ? ` ${e.v6}` : ""}`).join(", ")}`,
    );
  }
  for (const l of lab.links) lines.push(`  link ${l.index} ${l.left}-${l.right} mtu ${l.mtu}`);
  return lines;
}

const indexOf = (w: string | undefined): number => {
  if (w === undefined || !/^\d+$/.test(w))
    throw new Error("a path lab index is required (see `svc lab path up`)");
  return Number(w);
};

/** Runs `svc lab path <words>`; `print` gets every output line. */
export async function pathLabCommand(words: readonly string[], print: (line: string) => void): Promise<void> {
  const [verb, ...rest] = words;
  switch (verb) {
    case "up": {
      const flag = (name: string) => {
        const i = rest.indexOf(name);
        return i < 0 ? undefined : rest[i + 1];
      };
      const mtu = flag("--mtu");
      const lab = await PathLab.create({
        routers: Number(flag("--routers") ?? 1),
        ipv6: rest.includes("--ipv6"),
        ...(mtu ? { linkMtu: mtu.split(",").map(Number) } : {}),
      });
      for (const l of describePathLab(lab)) print(l);
      print(
        `run commands in a hop with: ip netns exec ${lab.namespace("A")} ...; remove with: svc lab path down ${lab.index}`,
      );
      return;
    }
    case "show":
      for (const l of describePathLab(await PathLab.attach(indexOf(rest[0])))) print(l);
      return;
    case "fault":
      await applyPathFault(await PathLab.attach(indexOf(rest[0])), parsePathFault(rest.slice(1)));
      print(`fault applied: ${rest.slice(1).join(" ")}`);
      return;
    case "heal":
      await (await PathLab.attach(indexOf(rest[0]))).heal();
      print("path lab healed");
      return;
    case "down":
      if (rest[0] === "--all") print(`removed ${await destroyAllPathLabs()} namespaces`);
      else {
        await (await PathLab.attach(indexOf(rest[0]))).destroy();
        print(`path lab ${rest[0]} removed`);
      }
      return;
    default:
      throw new Error(`usage:\n${PATH_LAB_USAGE}`);
  }
}
