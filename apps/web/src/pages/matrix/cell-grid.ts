/**
 * The matrix's cells by row (source) and column (destination) of the page's node order, read from the API's grid
 * layout (one tier letter per ordered pair, full cells only where the figures say more than the tier; see the
 * @svc/matrix-grid). Drawing 250,000 cells (500 nodes) reads letters by index; a full cell object is
 * made only for the one under the pointer. DOM-free (checked by cell-grid.test.ts).
 */
import { impliedCell, LETTER_TIER } from "@svc/matrix-grid";
import type {
  FleetMatrixGrid,
  FleetProtocol,
  FleetTier,
  MatrixCell,
  MatrixNode,
} from "../../components/fleet/types.ts";

export class CellGrid {
  /** nodes per side */
  readonly n: number;
  /** pairs with a tier (every ordered pair of distinct nodes the answer holds) */
  readonly size: number;
  /** answer index of each display row/column */
  readonly #answerIndex: Int32Array;
  readonly #index = new Map<string, number>();
  readonly #details = new Map<number, MatrixCell>();
  /** the answer's side (its nodes), letters and protocol */
  readonly #an: number;
  readonly #tiers: string;
  readonly #protocol: FleetProtocol;

  constructor(
    /** the nodes in display order (a permutation of the answer's) */
    readonly nodes: readonly MatrixNode[],
    answer: FleetMatrixGrid | undefined,
  ) {
    this.n = nodes.length;
    const answerIndex = new Map((answer?.nodes ?? []).map((node, i) => [node.name, i]));
    this.#answerIndex = new Int32Array(this.n);
    for (const [i, node] of nodes.entries()) {
      this.#index.set(node.name, i);
      this.#answerIndex[i] = answerIndex.get(node.name) ?? -1;
    }
    const an = answer?.nodes.length ?? 0;
    this.#an = an;
    this.#tiers = answer?.tiers ?? "";
    this.#protocol = answer?.protocol ?? "tcp";
    for (const c of answer?.details ?? []) {
      const s = answerIndex.get(c.source);
      const d = answerIndex.get(c.destination);
      if (s !== undefined && d !== undefined) this.#details.set(s * an + d, c);
    }
    this.size = an > 0 && this.#tiers.length === an * an ? an * (an - 1) : 0;
  }

  /** Tier at (row, col): "nodata" when the answer has none; null on the diagonal or off the grid. */
  tierAt(row: number, col: number): FleetTier | null {
    if (row === col || row < 0 || col < 0 || row >= this.n || col >= this.n) return null;
    const s = this.#answerIndex[row] ?? -1;
    const d = this.#answerIndex[col] ?? -1;
    if (s < 0 || d < 0) return "nodata";
    return LETTER_TIER[this.#tiers[s * this.#an + d] ?? ""] ?? "nodata";
  }

  /** Cell at (row, col) with its figures; null on the diagonal or off the grid. */
  at(row: number, col: number): MatrixCell | null {
    const tier = this.tierAt(row, col);
    const source = this.nodes[row]?.name;
    const destination = this.nodes[col]?.name;
    if (tier === null || source === undefined || destination === undefined) return null;
    const s = this.#answerIndex[row] ?? -1;
    const d = this.#answerIndex[col] ?? -1;
    const detail = s < 0 || d < 0 ? undefined : this.#details.get(s * this.#an + d);
    return detail ?? impliedCell(this.#protocol, source, destination, tier);
  }

  /** The cell from `source` to `destination`, or undefined for unknown nodes and the diagonal. */
  get(source: string, destination: string): MatrixCell | undefined {
    const row = this.#index.get(source);
    const col = this.#index.get(destination);
    return row === undefined || col === undefined ? undefined : (this.at(row, col) ?? undefined);
  }
}
