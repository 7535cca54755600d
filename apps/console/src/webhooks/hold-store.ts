/**
 * Where maintenance holds (holds.ts) are kept so that they outlive a console restart: one row per held alert edge
 * (the alert's identity and firedAt), with the transition as it will be delivered and when the latest matching
 * window closes. Rows are shared by every replica over one database; each replica that noticed the edge holds it and
 * delivers it at the close (spec §6.3 point 4: N replicas send N copies). A row that does not read back as a
 * transition (edited by hand, written by another version) is left out of a restore, never delivered.
 */
import { createHash } from "node:crypto";
import type { AlertTransition } from "../alerts/poller.ts";
import type { Db, Row } from "../store/db.ts";
import { json, num } from "../store/rows.ts";

/** One held edge: its key (alert identity @ firedAt), the alert.fired transition, and when its hold ends. */
export interface HeldEdge {
  key: string;
  transition: AlertTransition;
  /** epoch ms: the close of the latest matching window when it was (re)held */
  until: number;
}

/** Persistence of held edges. */
export interface HoldStore {
  /** Adds or replaces the row of `h.key`. */
  save(h: HeldEdge): Promise<void>;
  /** Deletes the row of `key` (nothing when absent). */
  remove(key: string): Promise<void>;
  /** Every stored edge that reads back as an alert.fired transition. */
  load(): Promise<HeldEdge[]>;
}

const MAX_ROWS = 100_000;

function keyHash(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

function isStringMap(v: unknown): v is Record<string, string> {
  return (
    typeof v === "object" &&
    v !== null &&
    !Array.isArray(v) &&
    Object.values(v).every((x) => typeof x === "string")
  );
}

/** The transition of a stored row, or undefined when the row does not hold one. */
export function storedTransition(v: unknown): AlertTransition | undefined {
  if (typeof v !== "object" || v === null) return undefined;
  const t = v as Record<string, unknown>;
  if (t.event !== "alert.fired") return undefined;
  if (typeof t.ruleId !== "string" || typeof t.firedAt !== "string" || typeof t.at !== "string")
    return undefined;
  if (!Number.isFinite(Date.parse(t.firedAt)) || !Number.isFinite(Date.parse(t.at))) return undefined;
  if (!isStringMap(t.labels)) return undefined;
  return { event: "alert.fired", ruleId: t.ruleId, labels: { ...t.labels }, firedAt: t.firedAt, at: t.at };
}

function toEdge(r: Row): HeldEdge | undefined {
  let raw: unknown;
  try {
    raw = json<unknown>(r.transition);
  } catch {
    return undefined;
  }
  const transition = storedTransition(raw);
  const until = num(r.until_at);
  if (!transition || !Number.isFinite(until)) return undefined;
  return { key: String(r.alert_key), transition, until };
}

/** Held edges in the console database (table maintenance_holds). */
export class SqlHoldStore implements HoldStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  async save(h: HeldEdge): Promise<void> {
    await this.db.query(
      `INSERT INTO maintenance_holds (key_hash, alert_key, transition, until_at, updated_at)
       VALUES ($1, $2, $3::jsonb, $4, $5)
       ON CONFLICT (key_hash) DO UPDATE SET transition = EXCLUDED.transition,
         until_at = EXCLUDED.until_at, updated_at = EXCLUDED.updated_at`,
      [keyHash(h.key), h.key, JSON.stringify(h.transition), h.until, this.now()],
    );
  }

  async remove(key: string): Promise<void> {
    await this.db.query("DELETE FROM maintenance_holds WHERE key_hash = $1", [keyHash(key)]);
  }

  async load(): Promise<HeldEdge[]> {
    const rows = await this.db.query(
      "SELECT alert_key, transition, until_at FROM maintenance_holds ORDER BY until_at, key_hash LIMIT $1",
      [MAX_ROWS],
    );
    return rows.map(toEdge).filter((e): e is HeldEdge => e !== undefined);
  }
}
