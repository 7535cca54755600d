/**
 * The DOM matrix (small fleets): a table whose cells are links to the Pair page, reachable with Tab, each
 * carrying its figures in its accessible name; hover or focus writes them into the details line.
 */
import { Link } from "@tanstack/react-router";
import { useEffect } from "react";
import { cellFigures, cellWord, TIER_COLOR } from "../../components/fleet/format.ts";
import { outlineShadow } from "../../components/fleet/suspect-words.ts";
import type { FleetProtocol, MatrixCell } from "../../components/fleet/types.ts";
import type { CellGrid } from "./cell-grid.ts";
import { markMatrixPainted } from "./paint-mark.ts";

/** Short cell text when the word does not fit (more than 16 nodes). */
const SHORT: Record<string, string> = {
  "Full size": "F",
  Reduced: "R",
  Recovering: "Rc",
  "Black hole": "BH",
  "no data": "–",
  "Not run": "NR",
  "Not planned": "·",
  Healthy: "",
  Degraded: "!",
  Failing: "✕",
};

/** Props of MatrixGrid. */
export interface MatrixGridProps {
  grid: CellGrid;
  protocol: FleetProtocol;
  onDetails: (cell: MatrixCell | null) => void;
  /** outlined cells (row * n + col in the grid's node order) and their outer edges (suspect-words.ts) */
  outline?: ReadonlyMap<number, number>;
}

/** The table. */
export function MatrixGrid(p: MatrixGridProps) {
  const wide = p.grid.n <= 16;
  const { grid } = p;
  const nodes = grid.nodes;
  useEffect(() => {
    markMatrixPainted(grid.n, grid.size);
  }, [grid]);
  return (
    <div className="table-wrap matrix-wrap">
      <table className="matrix" data-testid="matrix-grid" onMouseLeave={() => p.onDetails(null)}>
        <caption className="muted small">Rows: source · Columns: destination</caption>
        <thead>
          <tr>
            <th scope="col">
              <span className="sr-only">Source \ destination</span>
            </th>
            {nodes.map((d) => (
              <th key={d.name} scope="col" className="col-head">
                <span>{d.name}</span>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {nodes.map((s, row) => (
            <tr key={s.name}>
              <th scope="row" className="row-head">
                <Link to="/nodes/$name" params={{ name: s.name }} search={{ protocol: p.protocol }}>
                  {s.name}
                </Link>
                {s.external ? <span className="muted small"> external</span> : null}
              </th>
              {nodes.map((d, col) => {
                if (s.name === d.name) return <td key={d.name} className="self" aria-hidden="true" />;
                const edges = p.outline?.get(row * nodes.length + col);
                const cell = grid.get(s.name, d.name) ?? {
                  source: s.name,
                  destination: d.name,
                  tier: "nodata" as const,
                };
                const word = cellWord(cell);
                const figures = cellFigures(cell, p.protocol).join(", ");
                return (
                  <td
                    key={d.name}
                    className={edges === undefined ? "cell" : "cell outlined"}
                    data-outlined={edges === undefined ? undefined : "true"}
                    style={{
                      background: TIER_COLOR[cell.tier],
                      ...(edges ? { boxShadow: outlineShadow(edges) } : {}),
                    }}
                  >
                    <Link
                      to="/pairs/$source/$destination"
                      params={{ source: s.name, destination: d.name }}
                      className={`cell-link tier-${cell.tier}`}
                      data-source={s.name}
                      data-destination={d.name}
                      data-tier={cell.tier}
                      aria-label={figures}
                      title={figures}
                      onMouseEnter={() => p.onDetails(cell)}
                      onFocus={() => p.onDetails(cell)}
                    >
                      {wide ? word : (SHORT[word] ?? "")}
                    </Link>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
