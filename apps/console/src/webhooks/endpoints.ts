/**
 * Webhook endpoints (spec §2.12, §6.3): stored with the signing secret sealed (secret-box.ts); the secret never
 * leaves this module except to sign a delivery. Every write and its audit row commit in one transaction (the audit
 * detail names the endpoint, never the secret). Without the key (`webhooks.encryptionKeyFile`) creating an endpoint,
 * setting a secret and sending a test answer 503; listing, editing without a secret and deleting still work.
 */
import { randomUUID } from "node:crypto";
import type { WebhookCreate, WebhookEndpoint, WebhookEvent, WebhookUpdate } from "@svc/contract";
import { NotFoundError, UnavailableError } from "../errors.ts";
import { type AuditActor, allowedRow, insertAudit } from "../store/audit-row.ts";
import type { Db, Row } from "../store/db.ts";
import { num } from "../store/rows.ts";
import type { SecretBox } from "./secret-box.ts";
import type { AttemptOutcome, DeliveryTarget } from "./sender.ts";

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function parsed<T>(v: unknown): T {
  return (typeof v === "string" ? JSON.parse(v) : v) as T;
}

type StoredOutcome = {
  ok: boolean;
  at: number;
  attempt: number;
  status: number | null;
  error: string | null;
};

function toEndpoint(r: Row): WebhookEndpoint {
  const o = r.last_outcome == null ? null : parsed<StoredOutcome>(r.last_outcome);
  return {
    id: String(r.id),
    url: String(r.url),
    events: parsed<WebhookEvent[]>(r.events),
    enabled: r.enabled === true,
    lastOutcome: o ? { ok: o.ok, at: iso(o.at), attempt: o.attempt, status: o.status, error: o.error } : null,
    failureStreak: num(r.failure_streak),
    createdAt: iso(num(r.created_at)),
    updatedAt: iso(num(r.updated_at)),
  };
}

/** The 503 of spec §6.3 point 8. */
export class WebhookKeyMissingError extends UnavailableError {
  constructor() {
    super("webhook signing secrets need webhooks.encryptionKeyFile");
  }
}

/** Endpoint reads and audited writes; delivery targets with their secrets opened. */
export class WebhookEndpoints {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
    /** undefined without webhooks.encryptionKeyFile */
    private readonly box: SecretBox | undefined,
  ) {}

  private key(): SecretBox {
    if (!this.box) throw new WebhookKeyMissingError();
    return this.box;
  }

  async list(): Promise<WebhookEndpoint[]> {
    return (await this.db.query("SELECT * FROM webhook_endpoints ORDER BY created_at, id")).map(toEndpoint);
  }

  create(input: WebhookCreate, actor: AuditActor): Promise<WebhookEndpoint> {
    const box = this.key();
    const id = randomUUID();
    const now = this.now();
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query(
        `INSERT INTO webhook_endpoints (id, url, events, enabled, secret_sealed, created_at, updated_at)
         VALUES ($1, $2, $3::jsonb, $4, $5, $6, $6) RETURNING *`,
        [id, input.url, JSON.stringify(input.events), input.enabled, box.seal(input.secret, id), now],
      );
      if (!row) throw new Error("insert returned no row");
      await insertAudit(tx, allowedRow(actor, now, { endpointId: id, url: input.url }));
      return toEndpoint(row);
    });
  }

  update(id: string, input: WebhookUpdate, actor: AuditActor): Promise<WebhookEndpoint> {
    const sealed = input.secret === undefined ? null : this.key().seal(input.secret, id);
    const now = this.now();
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query(
        `UPDATE webhook_endpoints SET url = $2, events = $3::jsonb, enabled = $4,
           secret_sealed = coalesce($5, secret_sealed), updated_at = $6 WHERE id = $1 RETURNING *`,
        [id, input.url, JSON.stringify(input.events), input.enabled, sealed, now],
      );
      if (!row) throw new NotFoundError("no such webhook endpoint");
      await insertAudit(
        tx,
        allowedRow(actor, now, { endpointId: id, url: input.url, secretChanged: sealed !== null }),
      );
      return toEndpoint(row);
    });
  }

  delete(id: string, actor: AuditActor): Promise<void> {
    const now = this.now();
    return this.db.transaction(async (tx) => {
      const rows = await tx.query("DELETE FROM webhook_endpoints WHERE id = $1 RETURNING id", [id]);
      if (rows.length === 0) throw new NotFoundError("no such webhook endpoint");
      await insertAudit(tx, allowedRow(actor, now, { endpointId: id }));
    });
  }

  /** The delivery target of one endpoint (for a send test, enabled or not); 404 / 503 as the routes answer. */
  async target(id: string): Promise<DeliveryTarget> {
    const box = this.key();
    const [row] = await this.db.query("SELECT id, url, secret_sealed FROM webhook_endpoints WHERE id = $1", [
      id,
    ]);
    if (!row) throw new NotFoundError("no such webhook endpoint");
    return { endpointId: id, url: String(row.url), secret: box.open(String(row.secret_sealed), id) };
  }

  /** Enabled endpoints subscribed to `event`, secrets opened (none without the key: nothing can be signed). */
  async targetsFor(event: WebhookEvent): Promise<DeliveryTarget[]> {
    if (!this.box) return [];
    const box = this.box;
    const rows = await this.db.query(
      "SELECT id, url, secret_sealed FROM webhook_endpoints WHERE enabled AND events @> $1::jsonb",
      [JSON.stringify([event])],
    );
    const out: DeliveryTarget[] = [];
    for (const r of rows) {
      try {
        out.push({
          endpointId: String(r.id),
          url: String(r.url),
          secret: box.open(String(r.secret_sealed), String(r.id)),
        });
      } catch {
        // sealed with another key: cannot be signed; the endpoint needs a new secret
      }
    }
    return out;
  }

  /** Records a delivery's outcome: the last outcome always, the streak on a final one (reset by success). */
  async recordOutcome(endpointId: string, o: AttemptOutcome, final: boolean): Promise<void> {
    const stored: StoredOutcome = {
      ok: o.ok,
      at: o.at,
      attempt: o.attempt,
      status: o.status,
      error: o.error,
    };
    await this.db.query(
      `UPDATE webhook_endpoints SET last_outcome = $2::jsonb,
         failure_streak = CASE WHEN $3::boolean THEN 0 WHEN $4::boolean THEN failure_streak + 1 ELSE failure_streak END
       WHERE id = $1`,
      [endpointId, JSON.stringify(stored), o.ok, final],
    );
  }
}
