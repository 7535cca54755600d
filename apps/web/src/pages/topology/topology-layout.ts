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
  /** the drawing's extent (nodes, their labels, zone labels, the external box) with a margin: the SVG's viewBox */
  bounds: { x: number; y: number; width: number; height: number };
}

/** Room a node's label takes right of it, and the margin around everything, in user units. */
const LABEL_WIDTH = 150;
const PAD = 30;

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
  let [x0, y0, x1, y1] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, -Infinity, -Infinity];
  const cover = (x: number, y: number) => {
    x0 = Math.min(x0, x);
    y0 = Math.min(y0, y);
    x1 = Math.max(x1, x);
    y1 = Math.max(y1, y);
  };
  for (const p of at.values()) {
    cover(p.x - 12, p.y - 12);
    cover(p.x + LABEL_WIDTH, p.y + 12);
  }
  for (const z of zoneLabels) {
    cover(z.x - 70, z.y - 16);
    cover(z.x + 70, z.y + 8);
  }
  if (external) {
    cover(external.x - 60, external.top - 30);
    cover(external.x + 110, external.bottom);
  }
  const bounds =
    x0 === Number.POSITIVE_INFINITY
      ? { x: 0, y: 0, width, height }
      : { x: x0 - PAD, y: y0 - PAD, width: x1 - x0 + 2 * PAD, height: y1 - y0 + 2 * PAD };
  return { width, height, radius, at, zones: zoneLabels, external, bounds };
}
