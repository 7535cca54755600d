/** The sentences and blocks of a node suspect (down, unreachable, cut off, one protocol, path MTU). */
import { DOWN, IN_ALL, IN_P, ISO, MTU_IN, MTU_OUT, OUT_ALL, OUT_P } from "./candidates.ts";
import type { DescribeContext } from "./describe.ts";
import { badPlanes, effectOf, fine, lossNote, PLANES, perPlane, ratio, total } from "./evidence-text.ts";
import { protocolName } from "./observations.ts";
import type { ScopeStats } from "./scope-stats.ts";
import type { ScopeBlock, Suspect } from "./types.ts";

export function describeNode(
  ctx: DescribeContext,
  kind: number,
  x: string,
  mine: ScopeStats,
  nodeSt: (kind: number) => ScopeStats,
): Omit<Suspect, "role" | "confidence" | "explains" | "since"> {
  const row: ScopeBlock = { sources: [x], destinations: null };
  const col: ScopeBlock = { sources: null, destinations: [x] };
  const inbound = nodeSt(IN_ALL);
  const outbound = nodeSt(OUT_ALL);
  const reachBack = (s: ScopeStats) => `${total(s).observed - total(s).bad} of ${total(s).observed}`;
  const base = { node: x };
  if (kind === DOWN) {
    const t = total(mine);
    const icmp = inbound[2];
    const status = ctx.status[ctx.space.obs.nodeIndex(x) ?? -1];
    if (status?.reporting === true) {
      return {
        ...base,
        id: `node:${x}:unreachable`,
        kind: "node",
        mode: "unreachable",
        effect: effectOf(t),
        protocols: badPlanes(mine),
        evidence: [
          `${x} cannot be reached: ${perPlane(mine)} probes towards it fail`,
          `${x} has not reported since: whether it is down or cut off is not known yet`,
        ],
        scope: [col],
      };
    }
    const answersPing = icmp !== undefined && icmp.observed > 0 && icmp.hard * 2 < icmp.observed;
    const planes = perPlane(mine, answersPing ? [0, 1] : PLANES);
    return {
      ...base,
      id: `node-down:${x}`,
      kind: "node-down",
      mode: answersPing ? "down-agent" : "down-host",
      effect: "fail",
      protocols: badPlanes(mine, answersPing ? [0, 1] : PLANES),
      evidence: answersPing
        ? [
            `${x}'s agent is down: ${x} reports nothing and its peers' probes fail (${planes})`,
            `ping still answers (${fine(icmp)}): the host is up, its agent is not`,
          ]
        : [
            `${x} is down or its link is: it reports nothing and nothing reaches it (${planes})`,
            icmp && icmp.observed > 0
              ? `ping fails too (${ratio(icmp)}): not only its agent`
              : "ping was not measured towards it",
          ],
      scope: [row, col],
    };
  }
  if (kind === ISO) {
    const t = total(mine);
    return {
      ...base,
      id: `node:${x}:both`,
      kind: "node",
      mode: "both",
      effect: effectOf(t),
      protocols: badPlanes(mine),
      evidence: [
        `${x} is cut off: it fails to reach its peers (${perPlane(outbound)}) and they fail to reach it (${perPlane(inbound)})${lossNote(t)}`,
        `${x} still reports, so it is up: a network fault, not a node down`,
      ],
      scope: [row, col],
    };
  }
  if (kind === IN_ALL || kind === OUT_ALL) {
    const isIn = kind === IN_ALL;
    const t = total(mine);
    return {
      ...base,
      id: `node:${x}:${isIn ? "inbound" : "outbound"}`,
      kind: "node",
      mode: isIn ? "inbound" : "outbound",
      effect: effectOf(t),
      protocols: badPlanes(mine),
      evidence: isIn
        ? [
            `nothing reaches ${x}: probes towards it fail (${perPlane(mine)})${lossNote(t)}`,
            `${x} itself reaches ${reachBack(outbound)} of its peers' probes: inbound only, and up`,
          ]
        : [
            `${x} reaches none of its peers: its probes fail (${perPlane(mine)})${lossNote(t)}`,
            `${reachBack(inbound)} probes towards ${x} are fine: outbound only`,
          ],
      scope: [isIn ? col : row],
    };
  }
  if (kind >= IN_P && kind < IN_P + 3) return nodeProtocol(x, kind - IN_P, true, mine, inbound, col);
  if (kind >= OUT_P && kind < OUT_P + 3) return nodeProtocol(x, kind - OUT_P, false, mine, outbound, row);
  const isIn = kind === MTU_IN;
  const pm = mine[3] ?? total([]);
  const own = nodeSt(MTU_OUT)[3];
  const sizes = `${pm.maxProbe > 0 ? `${pm.maxProbe}-byte packets vanish` : "large packets vanish"}${pm.minBytes > 0 ? `, ${pm.minBytes} bytes cross` : ""}`;
  return {
    ...base,
    id: `node-mtu:${x}:${isIn ? "inbound" : "outbound"}`,
    kind: "node-mtu",
    mode: isIn ? "inbound" : "outbound",
    effect: "fail",
    protocols: ["pmtu"],
    evidence: [
      isIn
        ? `${pm.bad} of ${pm.observed} sources see a path-MTU black hole towards ${x}: ${sizes}`
        : `${x}'s path MTU fails towards ${pm.bad} of ${pm.observed} peers: ${sizes}`,
      ...(isIn && own && own.reduced > 0
        ? [
            `${x}'s own probes cross at ${own.reducedBytes} bytes only: its link's MTU is smaller than its peers'`,
          ]
        : []),
    ],
    scope: [isIn ? col : row],
  };
}

function nodeProtocol(
  x: string,
  p: number,
  isIn: boolean,
  mine: ScopeStats,
  all: ScopeStats,
  block: ScopeBlock,
): Omit<Suspect, "role" | "confidence" | "explains" | "since"> {
  const s = mine[p] ?? total([]);
  const name = protocolName(p);
  const others = PLANES.filter((q) => q !== p && (all[q]?.observed ?? 0) > 0);
  const othersFine = others.every((q) => (all[q]?.bad ?? 0) === 0);
  const otherText =
    others.length === 0
      ? "no other protocol measured"
      : `${others.map(protocolName).join(" and ")} ${othersFine ? "fine" : `: ${perPlane(all, others)} fail`}`;
  return {
    node: x,
    id: `node-protocol:${x}:${name}:${isIn ? "inbound" : "outbound"}`,
    kind: "node-protocol",
    mode: isIn ? "inbound" : "outbound",
    effect: effectOf(s),
    protocols: [name],
    evidence: [
      isIn
        ? `${s.bad} of ${s.observed} sources fail to reach ${x} over ${name}${lossNote(s)}; ${otherText}`
        : `${x} fails to reach ${s.bad} of ${s.observed} peers over ${name}${lossNote(s)}; ${otherText}`,
    ],
    scope: [block],
  };
}
