/**
 * MTR path history: a completed trace becomes a content-hashed path of its pair (sha256 over the hop addresses in
 * hop order; a silent hop counts as ""). Same hash as the pair's latest path: that row's last-seen stamp and trace
 * count move; otherwise a new row starts (a path change). Traces come from runs, schedules and pair-page
 * diagnostics; a result without hops is ignored.
 */
import { createHash } from "node:crypto";
import { MTR_SNAPSHOTS_MAX, type MtrSnapshot } from "@svc/contract";
import type { Db, Row } from "../store/db.ts";
import { json, num } from "../store/rows.ts";

type Hop = MtrSnapshot["hops"][number];

const iso = (ms: number) => new Date(ms).toISOString();
const n = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** The hops of a CheckResult (`details.hops`), or undefined when it holds none. */
export function hopsOf(result: Record<string, unknown>): Hop[] | undefined {
  const details = result.details;
  if (details === null || typeof details !== "object") return undefined;
  const hops = (details as { hops?: unknown }).hops;
  if (!Array.isArray(hops) || hops.length === 0) return undefined;
  return hops
    .filter((h): h is Record<string, unknown> => h !== null && typeof h === "object")
    .map((h, i) => ({
      number: n(h.number) ?? i + 1,
      ip: typeof h.ip === "string" ? h.ip : "",
      rttNs: n(h.rtt),
      lossRatio: n(h.lossRatio),
    }))
    .sort((a, b) => a.number - b.number);
}

/** The content hash of a path. */
export function pathHash(hops: readonly Hop[]): string {
  return createHash("sha256")
    .update(JSON.stringify(hops.map((h) => h.ip)))
    .digest("hex");
}

function toSnapshot(r: Row): MtrSnapshot {
  return {
    pathHash: String(r.path_hash),
    hops: json<Hop[]>(r.hops),
    origin: String(r.origin),
    firstAt: iso(num(r.first_at)),
    lastAt: iso(num(r.last_at)),
    traces: num(r.traces),
  };
}

/** The stored path history. */
export class MtrHistory {
  constructor(private readonly db: Db) {}

  /** Records a completed trace of `source` -> `destination` at `at`; false when the result holds no path. */
  async record(
    source: string,
    destination: string,
    result: Record<string, unknown>,
    origin: "run" | "schedule" | "diagnostic" | "reactive",
    at: number,
  ): Promise<boolean> {
    const hops = hopsOf(result);
    if (!hops) return false;
    const hash = pathHash(hops);
    await this.db.transaction(async (tx) => {
      const [latest] = await tx.query(
        `SELECT id, path_hash FROM mtr_paths WHERE source = $1 AND destination = $2
         ORDER BY first_at DESC, id DESC LIMIT 1 FOR UPDATE`,
        [source, destination],
      );
      if (latest && String(latest.path_hash) === hash) {
        // a trace at or before the path's last one was counted already (the same event ingested by another replica)
        await tx.query(
          "UPDATE mtr_paths SET last_at = $2, traces = traces + 1 WHERE id = $1 AND last_at < $2",
          [latest.id, at],
        );
        return;
      }
      await tx.query(
        `INSERT INTO mtr_paths (source, destination, path_hash, hops, origin, first_at, last_at, traces)
         VALUES ($1, $2, $3, $4::jsonb, $5, $6, $6, 1)`,
        [source, destination, hash, JSON.stringify(hops), origin, at],
      );
    });
    return true;
  }

  /** The pair's path changes, newest first. */
  async list(source: string, destination: string): Promise<MtrSnapshot[]> {
    const rows = await this.db.query(
      `SELECT * FROM mtr_paths WHERE source = $1 AND destination = $2 ORDER BY first_at DESC, id DESC LIMIT $3`,
      [source, destination, MTR_SNAPSHOTS_MAX],
    );
    return rows.map(toSnapshot);
  }
}
