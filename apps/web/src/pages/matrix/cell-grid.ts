/**
 * The matrix's cells by row (source) and column (destination) of the ordered nodes: one array slot per ordered
 * pair, so drawing and hit-testing 250,000 cells (500 nodes) cost an index, not a string key and a map lookup.
 * DOM-free (checked by cell-grid.test.ts).
 */
import type { FleetTier, MatrixCell, MatrixNode } from "../../components/fleet/types.ts";

export class CellGrid {
  /** nodes per side */
  readonly n: number;
  /** cells the answer holds for pairs of these nodes */
  readonly size: number;
  readonly #slots: (MatrixCell | undefined)[];
  readonly #index = new Map<string, number>();

  constructor(
    readonly nodes: readonly MatrixNode[],
    cells: readonly MatrixCell[],
  ) {
    this.n = nodes.length;
    for (const [i, node] of nodes.entries()) this.#index.set(node.name, i);
    this.#slots = new Array<MatrixCell | undefined>(this.n * this.n);
    let size = 0;
    for (const c of cells) {
      const row = this.#index.get(c.source);
      const col = this.#index.get(c.destination);
      if (row === undefined || col === undefined) continue;
      this.#slots[row * this.n + col] = c;
      size++;
    }
    this.size = size;
  }

  /** The answer's cell from `source` to `destination`, or undefined. */
  get(source: string, destination: string): MatrixCell | undefined {
    const row = this.#index.get(source);
    const col = this.#index.get(destination);
    return row === undefined || col === undefined ? undefined : this.#slots[row * this.n + col];
  }

  /** Tier at (row, col): the answer's, "nodata" when it holds none; null on the diagonal or off the grid. */
  tierAt(row: number, col: number): FleetTier | null {
    if (row === col || row < 0 || col < 0 || row >= this.n || col >= this.n) return null;
    return this.#slots[row * this.n + col]?.tier ?? "nodata";
  }

  /** Cell at (row, col), a "nodata" cell when the answer holds none; null on the diagonal or off the grid. */
  at(row: number, col: number): MatrixCell | null {
    const source = this.nodes[row]?.name;
    const destination = this.nodes[col]?.name;
    if (source === undefined || destination === undefined || row === col) return null;
    return this.#slots[row * this.n + col] ?? { source, destination, tier: "nodata" };
  }
}
