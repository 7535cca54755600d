/**
 * The canvas matrix (large fleets, e.g. 200 nodes): one draw of every cell, hit-testing for hover (figures in a
 * tooltip and the details line) and click (opens the Pair page). Keyboard users get the node picker instead.
 */
import { useNavigate } from "@tanstack/react-router";
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { cellFigures, TIER_COLOR } from "../../components/fleet/format.ts";
import { OUTLINE_COLOR } from "../../components/fleet/suspect-words.ts";
import type { FleetProtocol, FleetTier, MatrixCell } from "../../components/fleet/types.ts";
import type { CellGrid } from "./cell-grid.ts";
import { cellAt, type GridLayout, gridLayout } from "./matrix-geometry.ts";
import { markMatrixPainted } from "./paint-mark.ts";

/** Props of MatrixCanvas. */
export interface MatrixCanvasProps {
  grid: CellGrid;
  protocol: FleetProtocol;
  onDetails: (cell: MatrixCell | null) => void;
  /** outlined cells (row * n + col) and their outer edges (suspect-words.ts) */
  outline?: ReadonlyMap<number, number>;
}

/** RGB of each tier colour ("#rrggbb"). */
const TIER_RGB = Object.fromEntries(
  Object.entries(TIER_COLOR).map(([tier, hex]) => [
    tier,
    [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)),
  ]),
) as Record<FleetTier, number[]>;

/**
 * Draws every cell as one pixel of an n x n image, scaled up to the cell size without smoothing, then the gaps
 * between cells as 2n thin lines: 250,000 cells cost one putImageData and one drawImage instead of 250,000
 * fillRect calls. The gaps are cleared, as the diagonal is, so the page shows through.
 */
function draw(ctx: CanvasRenderingContext2D, g: GridLayout, grid: CellGrid): void {
  ctx.clearRect(0, 0, g.width, g.height);
  const n = g.n;
  if (n === 0) return;
  const img = new ImageData(n, n);
  const px = img.data;
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      const tier = grid.tierAt(r, c);
      if (tier === null) continue; // the diagonal stays transparent
      const rgb = TIER_RGB[tier];
      const o = (r * n + c) * 4;
      px[o] = rgb[0] ?? 0;
      px[o + 1] = rgb[1] ?? 0;
      px[o + 2] = rgb[2] ?? 0;
      px[o + 3] = 255;
    }
  }
  const cells = document.createElement("canvas");
  cells.width = n;
  cells.height = n;
  cells.getContext("2d")?.putImageData(img, 0, 0);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(cells, g.label, g.label, n * g.cell, n * g.cell);
  const gap = g.cell >= 10 ? 1 : 0.5;
  const side = n * g.cell;
  for (let i = 1; i <= n; i++) {
    const at = g.label + i * g.cell - gap;
    ctx.clearRect(at, g.label, gap, side);
    ctx.clearRect(g.label, at, side, gap);
  }
  if (g.label === 0) return;
  ctx.fillStyle = "#1b1f24";
  ctx.font = `${Math.min(12, g.cell - 2)}px system-ui, sans-serif`;
  ctx.textBaseline = "middle";
  grid.nodes.forEach((node, i) => {
    const mid = g.label + i * g.cell + g.cell / 2;
    ctx.textAlign = "right";
    ctx.fillText(node.name, g.label - 4, mid, g.label - 6);
    ctx.save();
    ctx.translate(mid, g.label - 4);
    ctx.rotate(-Math.PI / 2);
    ctx.textAlign = "left";
    ctx.fillText(node.name, 0, 0, g.label - 6);
    ctx.restore();
  });
}

/** Strokes the outer edges of the outlined cells (the suspects' rows, columns and blocks). */
function drawOutline(
  ctx: CanvasRenderingContext2D,
  g: GridLayout,
  outline: ReadonlyMap<number, number>,
): void {
  ctx.strokeStyle = OUTLINE_COLOR;
  ctx.lineWidth = g.cell >= 10 ? 2 : 1;
  ctx.beginPath();
  for (const [k, bits] of outline) {
    const x = g.label + (k % g.n) * g.cell;
    const y = g.label + Math.floor(k / g.n) * g.cell;
    const c = g.cell;
    if (bits & 1) ctx.rect(x, y, c, 0);
    if (bits & 2) ctx.rect(x + c, y, 0, c);
    if (bits & 4) ctx.rect(x, y + c, c, 0);
    if (bits & 8) ctx.rect(x, y, 0, c);
  }
  ctx.stroke();
}

/** The canvas grid. */
export function MatrixCanvas(p: MatrixCanvasProps) {
  const box = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  // null until the box is measured: the grid is drawn once, at the real width
  const [width, setWidth] = useState<number | null>(null);
  const [tip, setTip] = useState<{ x: number; y: number; lines: string[] } | null>(null);
  const navigate = useNavigate();
  const { grid } = p;
  const g = gridLayout(grid.n, width ?? 1200);

  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => setWidth(Math.max(240, el.clientWidth - 2));
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  // Redrawn only when the data or the width changes: hovering (tooltip state) must not repaint 250k cells.
  useEffect(() => {
    const el = canvas.current;
    const ctx = el?.getContext("2d");
    if (!el || !ctx || width === null) return;
    const layout = gridLayout(grid.n, width);
    const dpr = window.devicePixelRatio || 1;
    el.width = Math.round(layout.width * dpr);
    el.height = Math.round(layout.height * dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    draw(ctx, layout, grid);
    if (p.outline) drawOutline(ctx, layout, p.outline);
    markMatrixPainted(grid.n, grid.size);
  }, [grid, width, p.outline]);

  const hit = (e: React.MouseEvent<HTMLCanvasElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    const at = cellAt(g, e.clientX - r.left, e.clientY - r.top);
    return at ? { cell: grid.at(at.row, at.col), x: e.clientX - r.left, y: e.clientY - r.top } : null;
  };

  return (
    <div className="matrix-canvas-box" ref={box}>
      <canvas
        ref={canvas}
        data-testid="matrix-canvas"
        data-nodes={grid.n}
        style={{ width: g.width, height: g.height, cursor: tip ? "pointer" : "default" }}
        role="img"
        aria-label={`Matrix of ${grid.n} nodes, drawn as an image; use the node picker to open a node or pair.`}
        onMouseMove={(e) => {
          const h = hit(e);
          if (!h?.cell) {
            setTip(null);
            p.onDetails(null);
            return;
          }
          setTip({ x: h.x, y: h.y, lines: cellFigures(h.cell, p.protocol) });
          p.onDetails(h.cell);
        }}
        onMouseLeave={() => {
          setTip(null);
          p.onDetails(null);
        }}
        onClick={(e) => {
          const c = hit(e)?.cell;
          if (c)
            void navigate({
              to: "/pairs/$source/$destination",
              params: { source: c.source, destination: c.destination },
            });
        }}
      />
      {tip ? (
        <div
          className="matrix-tip"
          data-testid="matrix-tip"
          style={{ left: Math.min(tip.x + 14, Math.max(0, (width ?? 1200) - 260)), top: tip.y + 14 }}
        >
          {tip.lines.map((l) => (
            <div key={l}>{l}</div>
          ))}
        </div>
      ) : null}
    </div>
  );
}
