/**
 * Stored controller events, topology baselines and captured Kubernetes Events (migration 2), over a Db (PostgreSQL
 * or PGlite, the same SQL). Times are epoch milliseconds.
 *
 * Events are kept in arrival order under a row id; the history reads newest first by the controller's time, then
 * row id (keyset, see cursor.ts). An event seen twice (the same topic, sequence number and controller timestamp,
 * e.g. replayed after a resume) is stored once.
 */
import type { FeedEvent, K8sEvent } from "@svc/contract";
import type { TopologySnapshot } from "@svc/protocol";
import type { Db } from "../store/db.ts";
import { json, num } from "../store/rows.ts";
import { type EventKey, encodeCursor } from "./cursor.ts";

/** An event as ingested, before it has a row id. */
export interface NewEvent {
  topic: string;
  seq: number;
  /** the controller's timestamp, ns since epoch (the dedupe key's third part) */
  atNs: bigint;
  /** epoch ms */
  at: number;
  type: string;
  severity: string;
  scope: string;
  summary: string;
  payload: Record<string, unknown>;
  receivedAt: number;
}

/** Filters of a history page (all optional; `needle` is a normalised, lower-cased scope substring). */
export interface EventFilter {
  type?: string;
  severity?: string;
  needle?: string;
  /** only events at or before this instant, epoch ms */
  until?: number;
  /** the page after this key */
  before?: EventKey;
  limit: number;
}

/** One history page: rows newest first and the cursor of the next (older) page, null at the end. */
export interface EventPage {
  events: FeedEvent[];
  nextCursor: string | null;
}

/** A stored TopologyChanged event as topologyAt replays it. */
export interface TopologyChange {
  at: number;
  payload: Record<string, unknown>;
}

/** Rows one purge statement deletes at most (a purge repeats until done; keeps each transaction short). */
const PURGE_BATCH = 10_000;

function toFeedEvent(r: Record<string, unknown>): FeedEvent {
  return {
    id: String(r.id),
    at: new Date(num(r.at)).toISOString(),
    type: String(r.type),
    severity: String(r.severity),
    scope: String(r.scope),
    summary: String(r.summary),
    payload: json<Record<string, unknown>>(r.payload),
  };
}

function toK8sEvent(r: Record<string, unknown>): K8sEvent {
  return {
    id: String(r.uid),
    at: new Date(num(r.at)).toISOString(),
    firstAt: new Date(num(r.first_at)).toISOString(),
    type: String(r.type),
    reason: String(r.reason),
    message: String(r.message),
    namespace: String(r.namespace),
    object: String(r.object),
    node: r.node === null || r.node === undefined ? null : String(r.node),
    count: num(r.count),
  };
}

/** The event tables of the console database. */
export class EventStore {
  constructor(private readonly db: Db) {}

  /** Stores `e` unless already stored; resolves with the stored row (the earlier one for a duplicate). */
  async insert(e: NewEvent): Promise<FeedEvent> {
    const params = [
      e.topic,
      e.seq,
      e.atNs.toString(),
      e.at,
      e.type,
      e.severity,
      e.scope,
      e.summary,
      JSON.stringify(e.payload),
      e.receivedAt,
    ];
    const [row] = await this.db.query(
      `INSERT INTO events (topic, seq, at_ns, at, type, severity, scope, summary, payload, received_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10)
       ON CONFLICT (topic, seq, at_ns) DO NOTHING RETURNING *`,
      params,
    );
    if (row) return toFeedEvent(row);
    const [old] = await this.db.query("SELECT * FROM events WHERE topic = $1 AND seq = $2 AND at_ns = $3", [
      e.topic,
      e.seq,
      e.atNs.toString(),
    ]);
    if (!old) throw new Error("event neither inserted nor found");
    return toFeedEvent(old);
  }

  /** One page of history, newest first. */
  async list(f: EventFilter): Promise<EventPage> {
    const rows = await this.db.query(
      `SELECT * FROM events
       WHERE ($1::text IS NULL OR type = $1::text)
         AND ($2::text IS NULL OR severity = $2::text)
         AND ($3::text IS NULL OR strpos(lower(scope), $3::text) > 0)
         AND ($4::bigint IS NULL OR at <= $4::bigint)
         AND ($5::bigint IS NULL OR (at, id) < ($5::bigint, $6::bigint))
       ORDER BY at DESC, id DESC
       LIMIT $7`,
      [
        f.type ?? null,
        f.severity ?? null,
        f.needle ? f.needle : null,
        f.until ?? null,
        f.before?.at ?? null,
        f.before?.id ?? null,
        f.limit + 1,
      ],
    );
    const page = rows.slice(0, f.limit);
    const last = page[page.length - 1];
    const more = rows.length > f.limit && last !== undefined;
    return {
      events: page.map(toFeedEvent),
      nextCursor: more ? encodeCursor({ at: num(last.at), id: String(last.id) }) : null,
    };
  }

  /** Stores a topology baseline taken at `at`. */
  async insertBaseline(at: number, snapshot: TopologySnapshot): Promise<void> {
    await this.db.query("INSERT INTO topology_baselines (at, snapshot) VALUES ($1, $2::jsonb)", [
      at,
      JSON.stringify(snapshot),
    ]);
  }

  /** The newest baseline taken at or before `at`, if any. */
  async baselineAt(at: number): Promise<{ at: number; snapshot: TopologySnapshot } | undefined> {
    const [r] = await this.db.query(
      "SELECT at, snapshot FROM topology_baselines WHERE at <= $1 ORDER BY at DESC, id DESC LIMIT 1",
      [at],
    );
    return r ? { at: num(r.at), snapshot: json<TopologySnapshot>(r.snapshot) } : undefined;
  }

  /** TopologyChanged events after `from` up to and including `to`, oldest first, at most `limit`. */
  async topologyChanges(from: number, to: number, limit: number): Promise<TopologyChange[]> {
    const rows = await this.db.query(
      `SELECT at, payload FROM events WHERE type = 'TopologyChanged' AND at > $1 AND at <= $2
       ORDER BY at, id LIMIT $3`,
      [from, to, limit],
    );
    return rows.map((r) => ({ at: num(r.at), payload: json<Record<string, unknown>>(r.payload) }));
  }

  /** Stores or refreshes a captured Kubernetes Event (by uid). */
  async upsertK8s(e: K8sEvent): Promise<void> {
    await this.db.query(
      `INSERT INTO k8s_events (uid, at, first_at, type, reason, message, namespace, object, node, count)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (uid) DO UPDATE SET at = EXCLUDED.at, first_at = EXCLUDED.first_at, type = EXCLUDED.type,
         reason = EXCLUDED.reason, message = EXCLUDED.message, namespace = EXCLUDED.namespace,
         object = EXCLUDED.object, node = EXCLUDED.node, count = EXCLUDED.count`,
      [
        e.id,
        Date.parse(e.at),
        Date.parse(e.firstAt),
        e.type,
        e.reason,
        e.message,
        e.namespace,
        e.object,
        e.node,
        e.count,
      ],
    );
  }

  /** Captured Kubernetes Events last seen in [from, to], newest first, at most `limit`. */
  async listK8s(from: number, to: number, node: string | undefined, limit: number): Promise<K8sEvent[]> {
    const rows = await this.db.query(
      `SELECT * FROM k8s_events WHERE at >= $1 AND at <= $2 AND ($3::text IS NULL OR node = $3::text)
       ORDER BY at DESC, uid DESC LIMIT $4`,
      [from, to, node ?? null, limit],
    );
    return rows.map(toK8sEvent);
  }

  /**
   * Deletes events and cluster events older than `cutoff`, and baselines older than it except the newest of those
   * (the past just after the cutoff is still rebuilt from it). Resolves with the number of rows deleted.
   */
  async purge(cutoff: number): Promise<number> {
    let total = 0;
    for (const sql of [
      `DELETE FROM events WHERE id IN (SELECT id FROM events WHERE at < $1 LIMIT ${PURGE_BATCH})`,
      `DELETE FROM k8s_events WHERE uid IN (SELECT uid FROM k8s_events WHERE at < $1 LIMIT ${PURGE_BATCH})`,
    ]) {
      for (;;) {
        const n = (await this.db.query(`${sql} RETURNING 1`, [cutoff])).length;
        total += n;
        if (n < PURGE_BATCH) break;
      }
    }
    total += (
      await this.db.query(
        `DELETE FROM topology_baselines WHERE at < $1 AND id <> (
           SELECT id FROM topology_baselines WHERE at < $1 ORDER BY at DESC, id DESC LIMIT 1)
         RETURNING 1`,
        [cutoff],
      )
    ).length;
    return total;
  }
}
