/**
 * The canvas matrix (large fleets, e.g. 200 nodes): one draw of every cell, hit-testing for hover (figures in a
 * tooltip and the details line) and click (opens the Pair page). Keyboard users get the node picker instead.
 */
import { useNavigate } from "@tanstack/react-router";
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { cellFigures, TIER_COLOR } from "../../components/fleet/format.ts";
import type { FleetProtocol, MatrixCell, MatrixNode } from "../../components/fleet/types.ts";
import { cellAt, type GridLayout, gridLayout, pairKey } from "./matrix-geometry.ts";
import { markMatrixPainted } from "./paint-mark.ts";

/** Props of MatrixCanvas. */
export interface MatrixCanvasProps {
  nodes: MatrixNode[];
  cells: Map<string, MatrixCell>;
  protocol: FleetProtocol;
  onDetails: (cell: MatrixCell | null) => void;
}

function cellOf(p: MatrixCanvasProps, row: number, col: number): MatrixCell | null {
  const s = p.nodes[row]?.name;
  const d = p.nodes[col]?.name;
  if (s === undefined || d === undefined) return null;
  return p.cells.get(pairKey(s, d)) ?? { source: s, destination: d, tier: "nodata" };
}

function draw(ctx: CanvasRenderingContext2D, g: GridLayout, p: MatrixCanvasProps): void {
  ctx.clearRect(0, 0, g.width, g.height);
  const gap = g.cell >= 10 ? 1 : 0.5;
  for (let r = 0; r < g.n; r++) {
    for (let c = 0; c < g.n; c++) {
      if (r === c) continue;
      const cell = cellOf(p, r, c);
      ctx.fillStyle = cell ? TIER_COLOR[cell.tier] : "#fff";
      ctx.fillRect(g.label + c * g.cell, g.label + r * g.cell, g.cell - gap, g.cell - gap);
    }
  }
  if (g.label === 0) return;
  ctx.fillStyle = "#1b1f24";
  ctx.font = `${Math.min(12, g.cell - 2)}px system-ui, sans-serif`;
  ctx.textBaseline = "middle";
  p.nodes.forEach((n, i) => {
    const mid = g.label + i * g.cell + g.cell / 2;
    ctx.textAlign = "right";
    ctx.fillText(n.name, g.label - 4, mid, g.label - 6);
    ctx.save();
    ctx.translate(mid, g.label - 4);
    ctx.rotate(-Math.PI / 2);
    ctx.textAlign = "left";
    ctx.fillText(n.name, 0, 0, g.label - 6);
    ctx.restore();
  });
}

/** The canvas grid. */
export function MatrixCanvas(p: MatrixCanvasProps) {
  const box = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const [width, setWidth] = useState(1200);
  const [tip, setTip] = useState<{ x: number; y: number; lines: string[] } | null>(null);
  const navigate = useNavigate();
  const g = gridLayout(p.nodes.length, width);

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
  const { nodes, cells, protocol, onDetails } = p;
  useEffect(() => {
    const el = canvas.current;
    const ctx = el?.getContext("2d");
    if (!el || !ctx) return;
    const layout = gridLayout(nodes.length, width);
    const dpr = window.devicePixelRatio || 1;
    el.width = Math.round(layout.width * dpr);
    el.height = Math.round(layout.height * dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    draw(ctx, layout, { nodes, cells, protocol, onDetails });
    markMatrixPainted(nodes.length, cells.size);
  }, [nodes, cells, protocol, onDetails, width]);

  const hit = (e: React.MouseEvent<HTMLCanvasElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    const at = cellAt(g, e.clientX - r.left, e.clientY - r.top);
    return at ? { cell: cellOf(p, at.row, at.col), x: e.clientX - r.left, y: e.clientY - r.top } : null;
  };

  return (
    <div className="matrix-canvas-box" ref={box}>
      <canvas
        ref={canvas}
        data-testid="matrix-canvas"
        data-nodes={p.nodes.length}
        style={{ width: g.width, height: g.height, cursor: tip ? "pointer" : "default" }}
        role="img"
        aria-label={`Matrix of ${p.nodes.length} nodes, drawn as an image; use the node picker to open a node or pair.`}
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
          style={{ left: Math.min(tip.x + 14, Math.max(0, width - 260)), top: tip.y + 14 }}
        >
          {tip.lines.map((l) => (
            <div key={l}>{l}</div>
          ))}
        </div>
      ) : null}
    </div>
  );
}
