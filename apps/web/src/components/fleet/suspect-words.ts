/**
 * Words of the localization's suspects (GET /api/v1/fleet/suspects), and which pairs of a matrix a suspect
 * explains. DOM-free, so the node test runner checks it directly.
 */
import type { FleetProtocol, Suspect } from "@svc/contract";

/** What a suspect is, in a few words ("Node down: agent", "Cut off inbound", "Zone pair"). */
export function suspectTitle(s: Suspect): string {
  const loss = s.effect === "loss" ? " (packet loss)" : "";
  switch (s.kind) {
    case "node-down":
      return s.mode === "down-agent" ? "Agent down" : "Node or link down";
    case "node":
      if (s.mode === "unreachable") return "Unreachable (down or cut off: not known yet)";
      if (s.mode === "both") return `Node cut off${loss}`;
      return `Node cut off ${s.mode}${loss}`;
    case "node-protocol":
      return `${(s.protocols[0] ?? "").toUpperCase()} blocked ${s.mode === "inbound" ? "to" : "from"} node${loss}`;
    case "node-mtu":
      return "Path MTU on node";
    case "zone":
      return `Zone cut off${loss}`;
    case "zone-pair":
      return `Zones partitioned${loss}`;
    case "pair":
      return s.protocols.includes("pmtu")
        ? "Path MTU black hole on a pair"
        : `Pair path${s.mode === "both" ? " (both ways)" : ""}${loss}`;
    case "protocol":
      return `${(s.protocols[0] ?? "").toUpperCase()} failing fleet-wide${loss}`;
  }
}

/** The element a suspect names ("node-7", "zone-a ↔ zone-c", "node-1 → node-2", "the fleet"). */
export function suspectElement(s: Suspect): string {
  if (s.node) return s.node;
  if (s.zones) return s.zones.join(" ↔ ");
  if (s.source && s.destination) return `${s.source} ${s.mode === "both" ? "↔" : "→"} ${s.destination}`;
  return "the fleet";
}

/** Whether `s` explains the pair source -> destination on `protocol` (its protocols and its matrix blocks). */
export function explainsPair(
  s: Suspect,
  protocol: FleetProtocol | undefined,
  source: string,
  destination: string,
): boolean {
  if (protocol !== undefined && !s.protocols.includes(protocol)) return false;
  return s.scope.some(
    (b) =>
      (b.sources === null || b.sources.includes(source)) &&
      (b.destinations === null || b.destinations.includes(destination)),
  );
}

/** Whether `s` names exactly this pair (either direction for a both-ways pair) or this node. */
export function namesElement(
  s: Suspect,
  el: { node?: string; source?: string; destination?: string },
): boolean {
  if (el.node !== undefined) return s.node === el.node;
  if (s.kind !== "pair") return false;
  if (s.source === el.source && s.destination === el.destination) return true;
  return s.mode === "both" && s.source === el.destination && s.destination === el.source;
}

/** The suspects (not alternatives) of an answer. */
export const explanation = (list: readonly Suspect[] | undefined): Suspect[] =>
  (list ?? []).filter((s) => s.role === "suspect");

/**
 * For a matrix of `names` (in drawing order) and one protocol: per cell (row * n + col) whether it is outlined,
 * and for each outlined cell which of its four edges border a cell that is not (top, right, bottom, left bits).
 */
export function outlineEdges(
  suspects: readonly Suspect[],
  protocol: FleetProtocol,
  names: readonly string[],
): Map<number, number> {
  const n = names.length;
  const index = new Map(names.map((x, i) => [x, i]));
  const inside = new Set<number>();
  for (const s of suspects) {
    if (!s.protocols.includes(protocol)) continue;
    for (const b of s.scope) {
      const rows = b.sources === null ? names.map((_, i) => i) : b.sources.flatMap((x) => index.get(x) ?? []);
      const cols =
        b.destinations === null ? names.map((_, i) => i) : b.destinations.flatMap((x) => index.get(x) ?? []);
      // the diagonal counts inside where a block holds it (a node's row), so the outline runs past its gap
      for (const r of rows) for (const c of cols) inside.add(r * n + c);
    }
  }
  const edges = new Map<number, number>();
  const has = (r: number, c: number) => r >= 0 && c >= 0 && r < n && c < n && inside.has(r * n + c);
  for (const k of inside) {
    const r = Math.floor(k / n);
    const c = k % n;
    if (r === c) continue;
    const bits =
      (has(r - 1, c) ? 0 : 1) | (has(r, c + 1) ? 0 : 2) | (has(r + 1, c) ? 0 : 4) | (has(r, c - 1) ? 0 : 8);
    edges.set(k, bits);
  }
  return edges;
}

/** Colour of a suspect's outline on the matrix. */
export const OUTLINE_COLOR = "#6d28d9";

/**
 * The CSS box-shadow that draws the outer edges (outlineEdges bits) of an outlined cell, inside the cell (cells
 * stand apart, so a shadow outside would hide under the next one).
 */
export function outlineShadow(bits: number): string {
  const parts: string[] = [];
  if (bits & 1) parts.push(`inset 0 4px 0 0 ${OUTLINE_COLOR}`);
  if (bits & 2) parts.push(`inset -4px 0 0 0 ${OUTLINE_COLOR}`);
  if (bits & 4) parts.push(`inset 0 -4px 0 0 ${OUTLINE_COLOR}`);
  if (bits & 8) parts.push(`inset 4px 0 0 0 ${OUTLINE_COLOR}`);
  return parts.join(", ");
}
