/**
 * The matrix's grid layout (GET /api/v1/fleet/matrix?layout=grid), shared by the console (encode) and the web
 * app (decode): pure code with type-only imports, so the browser bundle takes nothing else of the server.
 *
 * 500 nodes make 249,500 cells; as objects they are ~19 MiB of JSON the browser must parse before it can draw.
 * The grid sends one letter per ordered pair instead, and full cells only where the figures say more than the
 * tier: a measured cell whose figures are exactly those its tier implies (fail ratio 0, and loss 0 for udp and
 * icmp; nothing for the tiers that measured nothing) is left out of `details`. Expanding a grid gives back the
 * cells layout exactly (matrix-grid.test.ts checks that).
 */
import type { FleetMatrix, FleetMatrixGrid, FleetProtocol, FleetTier, MatrixCell } from "@svc/contract";

export type { FleetMatrixGrid };

/** The letter of each tier in `tiers`. */
export const TIER_LETTER: Readonly<Record<FleetTier, string>> = {
  healthy: "h",
  degraded: "d",
  failing: "f",
  nodata: "n",
  notrun: "r",
  unplanned: "u",
};

/** The tier of each letter (the diagonal's "-" has none). */
export const LETTER_TIER: Readonly<Record<string, FleetTier>> = Object.fromEntries(
  Object.entries(TIER_LETTER).map(([tier, letter]) => [letter, tier as FleetTier]),
);

/** The cell `tiers` implies for source -> destination of `tier` when `details` holds none. */
export function impliedCell(
  protocol: FleetProtocol,
  source: string,
  destination: string,
  tier: FleetTier,
): MatrixCell {
  const cell: MatrixCell = { source, destination, tier };
  if (protocol === "pmtu" || (tier !== "healthy" && tier !== "degraded" && tier !== "failing")) return cell;
  cell.failRatio = 0;
  if (protocol !== "tcp") cell.lossRatio = 0;
  return cell;
}

function sameCell(a: MatrixCell, b: MatrixCell): boolean {
  return (
    a.tier === b.tier &&
    a.failRatio === b.failRatio &&
    a.lossRatio === b.lossRatio &&
    a.rttP95Seconds === b.rttP95Seconds &&
    JSON.stringify(a.pmtu) === JSON.stringify(b.pmtu)
  );
}

/**
 * The grid layout of a matrix. Pairs the cells layout lacks read as unplanned in a sparse matrix (its cells leave
 * the pairs outside the plan out) and as no data otherwise. The letters are written into one byte array, not an
 * array of n^2 strings: at 5,000 nodes that is 25 M letters.
 */
export function toGrid(m: FleetMatrix): FleetMatrixGrid {
  const n = m.nodes.length;
  const index = new Map(m.nodes.map((node, i) => [node.name, i]));
  const letters = new Uint8Array(n * n).fill(CODE[m.sparse ? "unplanned" : "nodata"]);
  for (let i = 0; i < n; i++) letters[i * n + i] = DIAGONAL;
  const details: { at: number; cell: MatrixCell }[] = [];
  for (const c of m.cells) {
    const row = index.get(c.source);
    const col = index.get(c.destination);
    if (row === undefined || col === undefined || row === col) continue;
    letters[row * n + col] = CODE[c.tier];
    if (!sameCell(c, impliedCell(m.protocol, c.source, c.destination, c.tier)))
      details.push({ at: row * n + col, cell: c });
  }
  details.sort((a, b) => a.at - b.at);
  const { cells: _cells, ...rest } = m;
  return {
    ...rest,
    layout: "grid",
    tiers: new TextDecoder().decode(letters),
    details: details.map((d) => d.cell),
  };
}

/** The byte of each tier's letter, and of the diagonal's "-". */
const CODE = Object.fromEntries(
  Object.entries(TIER_LETTER).map(([tier, letter]) => [tier, letter.charCodeAt(0)]),
) as Record<FleetTier, number>;
const DIAGONAL = "-".charCodeAt(0);

/**
 * The tier of one pair in a grid (undefined when a node is not in it, or on the diagonal), without expanding the
 * grid into cells (5,000 nodes: 25 M of them).
 */
export function gridTier(g: FleetMatrixGrid, source: string, destination: string): FleetTier | undefined {
  const row = g.nodes.findIndex((n) => n.name === source);
  const col = g.nodes.findIndex((n) => n.name === destination);
  if (row < 0 || col < 0 || row === col) return undefined;
  return LETTER_TIER[g.tiers[row * g.nodes.length + col] ?? ""];
}

/** The cells layout of a grid: every ordered pair of distinct nodes, row-major. */
export function fromGrid(g: FleetMatrixGrid): MatrixCell[] {
  const n = g.nodes.length;
  const detail = new Map(g.details.map((c) => [`${c.source}\n${c.destination}`, c]));
  const cells: MatrixCell[] = [];
  for (let row = 0; row < n; row++)
    for (let col = 0; col < n; col++) {
      if (row === col) continue;
      const source = g.nodes[row]?.name ?? "";
      const destination = g.nodes[col]?.name ?? "";
      const tier = LETTER_TIER[g.tiers[row * n + col] ?? ""] ?? "nodata";
      cells.push(
        detail.get(`${source}\n${destination}`) ?? impliedCell(g.protocol, source, destination, tier),
      );
    }
  return cells;
}
