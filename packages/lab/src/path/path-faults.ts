/**
 * nftables rules for path-lab faults. Every fault lives in its own chain of the `inet svc_path` table in the
 * namespace it applies to, jumped to from one output hook chain, so a fault can be replaced (flush its chain)
 * without touching the others, and heal deletes the table.
 */
export const PATH_TABLE = "svc_path";

/** Protocols a `loss` fault can hit. `icmp` means echo requests (v4 and v6). */
export type PathLossProtocol = "tcp" | "udp" | "icmp" | "all";
export const PATH_LOSS_PROTOCOLS: readonly PathLossProtocol[] = ["tcp", "udp", "icmp", "all"];

/** The fault chains, in the order the output chain jumps to them. */
export const PATH_CHAINS = [
  "fragneeded",
  "hoploss",
  "silence",
  "loss_tcp",
  "loss_udp",
  "loss_icmp",
  "loss_all",
] as const;
export type PathChain = (typeof PATH_CHAINS)[number];

/** The nft match for "with probability percent/100" (basis points, so 12.5 % is exact; 100 % = "", always). */
export function randomPercent(percent: number): string {
  if (!Number.isFinite(percent) || percent < 0 || percent > 100) {
    throw new Error(`loss percent must be 0-100, got ${percent}`);
  }
  return percent === 100 ? "" : `numgen random mod 10000 < ${Math.round(percent * 100)} `;
}

/** Router drops its outbound ICMP frag-needed and ICMPv6 packet-too-big: a PMTU black hole. */
export function fragNeededRules(): string[] {
  return ["icmp type destination-unreachable icmp code frag-needed drop", "icmpv6 type packet-too-big drop"];
}

/** Loss on a router's outbound time-exceeded and echo-reply (v4 and v6); 0 % = no rule. */
export function hopLossRules(percent: number): string[] {
  if (percent === 0) return [];
  const p = randomPercent(percent);
  return [
    `icmp type { time-exceeded, echo-reply } ${p}drop`,
    `icmpv6 type { time-exceeded, echo-reply } ${p}drop`,
  ];
}

/** The router never answers: every outbound ICMP, and every ICMPv6 message except neighbour discovery. */
export function silenceRules(): string[] {
  return [
    "meta l4proto icmp drop",
    "icmpv6 type { destination-unreachable, packet-too-big, time-exceeded, parameter-problem, echo-reply } drop",
  ];
}

/**
 * Loss on a node's outbound probe traffic of one protocol, optionally only towards `to` (an IPv4 or IPv6
 * address). IPv6 neighbour discovery is never dropped. 0 % = no rule.
 */
export function lossRules(protocol: PathLossProtocol, percent: number, to?: string): string[] {
  if (percent === 0) return [];
  const p = randomPercent(percent);
  const v4 = to === undefined || !to.includes(":");
  const v6 = to === undefined || to.includes(":");
  const d4 = to === undefined ? "" : `ip daddr ${to} `;
  const d6 = to === undefined ? "" : `ip6 daddr ${to} `;
  const out: string[] = [];
  const both = (m4: string, m6: string) => {
    if (v4) out.push(`${d4}${m4} ${p}drop`);
    if (v6) out.push(`${d6}${m6} ${p}drop`);
  };
  switch (protocol) {
    case "tcp":
    case "udp":
      both(`meta nfproto ipv4 meta l4proto ${protocol}`, `meta nfproto ipv6 meta l4proto ${protocol}`);
      break;
    case "icmp":
      both("icmp type echo-request", "icmpv6 type echo-request");
      break;
    case "all":
      both("meta nfproto ipv4", "meta nfproto ipv6 meta l4proto != ipv6-icmp");
      if (v6) {
        out.push(
          `${d6}icmpv6 type != { nd-neighbor-solicit, nd-neighbor-advert, nd-router-solicit, nd-router-advert } ${p}drop`,
        );
      }
      break;
  }
  return out;
}

/**
 * Declares the table idempotently: the output hook jumps to every fault chain, the forward hook to the loss
 * chains only (so loss on a router hits what it forwards as well as its own traffic). Safe to apply again from
 * another process: existing fault chains keep their rules.
 */
export function tableScript(): string {
  const loss = PATH_CHAINS.filter((c) => c.startsWith("loss_"));
  return [
    `table inet ${PATH_TABLE} {`,
    ...PATH_CHAINS.map((c) => `  chain ${c} {\n  }`),
    "  chain output {\n    type filter hook output priority 0; policy accept;\n  }",
    "  chain forward {\n    type filter hook forward priority 0; policy accept;\n  }",
    "}",
    `flush chain inet ${PATH_TABLE} output`,
    `flush chain inet ${PATH_TABLE} forward`,
    ...PATH_CHAINS.map((c) => `add rule inet ${PATH_TABLE} output jump ${c}`),
    ...loss.map((c) => `add rule inet ${PATH_TABLE} forward jump ${c}`),
    "",
  ].join("\n");
}

/** Replaces the rules of one fault chain (the table must exist). */
export function chainScript(chain: PathChain, rules: readonly string[]): string {
  return [
    `flush chain inet ${PATH_TABLE} ${chain}`,
    ...rules.map((r) => `add rule inet ${PATH_TABLE} ${chain} ${r}`),
    "",
  ].join("\n");
}
