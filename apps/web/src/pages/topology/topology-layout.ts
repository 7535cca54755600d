/**
 * Where the Topology page draws each node: cluster nodes on a ring, grouped by zone (a gap between zones, the
 * zone's name outside its arc); external agents apart, in a column right of the ring. DOM-free.
 */

/** A node as the layout needs it. */
export interface LayoutNode {
  name: string;
  zone: string;
  external: boolean;
}

/** Positions in SVG user units. */
export interface TopologyLayout {
  width: number;
  height: number;
  radius: number;
  at: Map<string, { x: number; y: number }>;
  zones: { zone: string; x: number; y: number; count: number }[];
  external: { x: number; top: number; bottom: number } | null;
}

/** Lays out the nodes; the ring's radius grows with the node count. */
export function topologyLayout(nodes: readonly LayoutNode[]): TopologyLayout {
  const inner = nodes.filter((n) => !n.external);
  const outer = nodes.filter((n) => n.external).sort((a, b) => a.name.localeCompare(b.name));
  const zones = [...new Set(inner.map((n) => n.zone))].sort();
  const byZone = zones.map((z) =>
    inner.filter((n) => n.zone === z).sort((a, b) => a.name.localeCompare(b.name)),
  );
  const radius = Math.max(140, Math.min(600, inner.length * 9));
  const margin = 110;
  const cx = radius + margin;
  const cy = radius + margin;
  const at = new Map<string, { x: number; y: number }>();
  const gapSlots = zones.length > 1 ? 1 : 0;
  const slots = inner.length + gapSlots * zones.length;
  let slot = 0;
  const zoneLabels: TopologyLayout["zones"] = [];
  byZone.forEach((members, i) => {
    const first = slot;
    for (const n of members) {
      const a = (2 * Math.PI * slot) / Math.max(1, slots) - Math.PI / 2;
      at.set(n.name, { x: cx + radius * Math.cos(a), y: cy + radius * Math.sin(a) });
      slot++;
    }
    const mid = (2 * Math.PI * (first + (members.length - 1) / 2)) / Math.max(1, slots) - Math.PI / 2;
    const zone = zones[i] ?? "";
    zoneLabels.push({
      zone,
      x: cx + (radius + 60) * Math.cos(mid),
      y: cy + (radius + 60) * Math.sin(mid),
      count: members.length,
    });
    slot += gapSlots;
  });
  let external: TopologyLayout["external"] = null;
  let width = 2 * (radius + margin);
  const height = Math.max(2 * (radius + margin), outer.length * 36 + 80);
  if (outer.length > 0) {
    const x = width + 80;
    const top = 60;
    outer.forEach((n, i) => {
      at.set(n.name, { x, y: top + 20 + i * 36 });
    });
    external = { x, top, bottom: top + outer.length * 36 + 20 };
    width = x + 140;
  }
  return { width, height, radius, at, zones: zoneLabels, external };
}
