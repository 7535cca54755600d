/**
 * Layout of the matrix: node order and the canvas grid's geometry with hit-testing.
 * DOM-free (checked by matrix-geometry.test.ts).
 */
import type { MatrixNode } from "../../components/fleet/types.ts";

/** Above this many nodes the matrix is drawn on a canvas; up to it, a DOM grid with focusable cells. */
export const CANVAS_THRESHOLD = 40;

/** Nodes in reading order: cluster nodes by zone then name, external agents last. */
export function orderNodes(nodes: readonly MatrixNode[]): MatrixNode[] {
  return [...nodes].sort(
    (a, b) =>
      Number(a.external) - Number(b.external) || a.zone.localeCompare(b.zone) || a.name.localeCompare(b.name),
  );
}

/** Geometry of the canvas grid (CSS pixels). Rows are sources, columns destinations. */
export interface GridLayout {
  n: number;
  /** side of one cell, gap included */
  cell: number;
  /** width of the row-label column and height of the column-label band (0 when labels are not drawn) */
  label: number;
  width: number;
  height: number;
}

/** The grid for `n` nodes in `available` CSS pixels: cells 6-28 px; labels only when a cell is at least 12 px. */
export function gridLayout(n: number, available: number): GridLayout {
  const fit = (room: number) => Math.floor(room / Math.max(1, n));
  let label = 110;
  let cell = Math.min(28, fit(available - label));
  if (cell < 12) {
    label = 0;
    cell = Math.max(6, Math.min(28, fit(available)));
  }
  return { n, cell, label, width: label + n * cell, height: label + n * cell };
}

/** The cell under a point (CSS pixels from the canvas's top left), or null off the grid or on the diagonal. */
export function cellAt(g: GridLayout, x: number, y: number): { row: number; col: number } | null {
  const gx = x - g.label;
  const gy = y - g.label;
  if (gx < 0 || gy < 0) return null;
  const col = Math.floor(gx / g.cell);
  const row = Math.floor(gy / g.cell);
  if (col >= g.n || row >= g.n || row === col) return null;
  return { row, col };
}
