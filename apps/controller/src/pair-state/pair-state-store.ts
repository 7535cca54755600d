import {
  PAIR_STATE_PLANES,
  type PairProblemMessage,
  type PairStatePlane,
  type PairStateProblem,
  type PairStatesBody,
  type ReportPairStateRequest,
} from "@svc/protocol";
import { InvalidInputError } from "../errors.ts";
import { quote } from "../grpc/echo.ts";

/** A source whose last report is older than this is left out (its agent stopped reporting): 3 keepalives. */
export const PAIR_STATE_STALE_MS = 30_000;

interface SourceState {
  node: string;
  seq: number;
  at: number;
  /** `plane\ndestination` -> ratio */
  problems: Map<string, number>;
}

export interface PairStateStoreOptions {
  /** whether `node` is a registered node (a destination the fleet has); others are not kept */
  isNode: (node: string) => boolean;
  now?: () => number;
  staleMs?: number;
}

const PLANES = new Set<string>(PAIR_STATE_PLANES);

/**
 * The pairs in trouble now as the agents report them (svc.v1.PairStateService), per registered agent: a full
 * report replaces its set, a change report applies to the report before it (same agent, seq - 1) or asks for a
 * full one. Only the leader holds it; it is empty after a start or a leadership change until the agents report
 * (they send a full report first). A report is validated whole before anything changes.
 */
export class PairStateStore {
  readonly #opts: PairStateStoreOptions;
  readonly #now: () => number;
  readonly #staleMs: number;
  readonly #sources = new Map<string, SourceState>();

  constructor(opts: PairStateStoreOptions) {
    this.#opts = opts;
    this.#now = opts.now ?? Date.now;
    this.#staleMs = opts.staleMs ?? PAIR_STATE_STALE_MS;
  }

  /**
   * Applies `req` from the registered agent `agentId` on node `node`. Returns whether the controller needs a full
   * report (a change report whose predecessor it does not hold: nothing applied). Throws InvalidInputError for a
   * plane, ratio or destination that cannot be a pair state (nothing applied).
   */
  report(agentId: string, node: string, req: ReportPairStateRequest): { needFull: boolean } {
    const set = valid(req.problems ?? [], "problems", node, this.#opts.isNode);
    const cleared = valid(req.cleared ?? [], "cleared", node, this.#opts.isNode);
    const seq = req.seq ?? 0;
    const prev = this.#sources.get(agentId);
    if (req.full) {
      this.#sources.set(agentId, { node, seq, at: this.#now(), problems: new Map(set) });
      return { needFull: false };
    }
    if (prev === undefined || prev.node !== node || prev.seq + 1 !== seq) return { needFull: true };
    for (const [key] of cleared) prev.problems.delete(key);
    for (const [key, ratio] of set) prev.problems.set(key, ratio);
    prev.seq = seq;
    prev.at = this.#now();
    return { needFull: false };
  }

  /** Forgets an agent's state (deregistered, evicted, or replaced). */
  forget(agentId: string): void {
    this.#sources.delete(agentId);
  }

  /** Forgets every state (this replica stopped leading). */
  clear(): void {
    this.#sources.clear();
  }

  /** Everything held, stale sources included, as text (tests compare it before and after a call). */
  dump(): string {
    return JSON.stringify(
      [...this.#sources].map(([id, v]) => [id, v.node, v.seq, [...v.problems].sort()]).sort(),
    );
  }

  /** The reporting sources and their pairs in trouble (sources silent for staleMs are left out). */
  body(): PairStatesBody {
    const now = this.#now();
    const sources: string[] = [];
    const problems: PairStateProblem[] = [];
    for (const s of this.#sources.values()) {
      if (now - s.at > this.#staleMs) continue;
      sources.push(s.node);
      for (const [key, ratio] of s.problems) {
        const cut = key.indexOf("\n");
        problems.push({
          source: s.node,
          destination: key.slice(cut + 1),
          plane: key.slice(0, cut) as PairStatePlane,
          ratio,
        });
      }
    }
    return { sources, problems };
  }
}

/** `list` as `plane\ndestination` -> ratio; refuses what cannot be a pair state, skips unknown destinations. */
function valid(
  list: readonly PairProblemMessage[],
  field: string,
  source: string,
  isNode: (node: string) => boolean,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const [i, p] of list.entries()) {
    const at = `${field}[${i}]`;
    if (!PLANES.has(p.plane))
      throw new InvalidInputError(
        `${at}.plane: one of ${PAIR_STATE_PLANES.join(", ")}, got ${quote(p.plane)}`,
      );
    if (field === "problems" && !(Number.isFinite(p.ratio) && p.ratio > 0 && p.ratio <= 1))
      throw new InvalidInputError(`${at}.ratio: a number in (0, 1], got ${p.ratio}`);
    if (p.destination_node === "" || p.destination_node === source)
      throw new InvalidInputError(
        `${at}.destination_node: another node's name, got ${quote(p.destination_node)}`,
      );
    // a destination the registry does not hold (it just left, or never was) is not a pair of this fleet
    if (!isNode(p.destination_node)) continue;
    out.set(`${p.plane}\n${p.destination_node}`, p.ratio);
  }
  return out;
}
