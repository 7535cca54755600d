/**
 * Turns alert transitions into webhook deliveries (spec §2.13, §6.3): one body per transition, the same bytes for
 * every subscribed endpoint and every attempt; `sentAt` is the delivery's time. Alert family keys: `event`,
 * `alert.ruleId`, `alert.labels`, `alert.firedAt`, `alert.resolvedAt` (null on alert.fired: every key of the family
 * on every delivery), `sentAt`. Deliveries are not awaited: retries wait on the sender's scheduler.
 */
import type { AlertTransition, AlertTransitionSink } from "../alerts/poller.ts";
import type { ConsoleConfig } from "../config/schema.ts";
import { type Scheduler, wallClock } from "../events/ingester.ts";
import { MaintenanceWindows } from "../maintenance/windows.ts";
import type { Db } from "../store/db.ts";
import { WebhookEndpoints } from "./endpoints.ts";
import { SqlHoldStore } from "./hold-store.ts";
import { MaintenanceGate } from "./holds.ts";
import { SecretBox } from "./secret-box.ts";
import { WebhookSender } from "./sender.ts";

/** The alert-family body of one transition. */
export function alertBody(t: AlertTransition, sentAt: number): Buffer {
  return Buffer.from(
    JSON.stringify({
      event: t.event,
      alert: {
        ruleId: t.ruleId,
        labels: t.labels,
        firedAt: t.firedAt,
        resolvedAt: t.event === "alert.resolved" ? t.at : null,
      },
      sentAt: new Date(sentAt).toISOString(),
    }),
  );
}

/** The body of a send test. */
export function testBody(endpointId: string, sentAt: number): Buffer {
  return Buffer.from(
    JSON.stringify({ event: "webhook.test", endpointId, sentAt: new Date(sentAt).toISOString() }),
  );
}

/** An AlertTransitionSink delivering to every enabled endpoint subscribed to the transition's event. */
export class WebhookDispatcher implements AlertTransitionSink {
  constructor(
    private readonly endpoints: WebhookEndpoints,
    private readonly sender: WebhookSender,
    private readonly now: () => number,
  ) {}

  async transitions(batch: readonly AlertTransition[]): Promise<void> {
    for (const t of batch) {
      const targets = await this.endpoints.targetsFor(t.event);
      if (targets.length === 0) continue;
      const body = alertBody(t, this.now());
      for (const target of targets) void this.sender.deliver(target, body);
    }
  }
}

/** What the maintenance holds need from the rest of the console. */
export interface HoldSeams {
  /** true while the poller still sees the alert firing with this firedAt; undefined before its baseline */
  stillFiring: (t: AlertTransition) => boolean | undefined;
  onSuppressed?: (event: AlertTransition["event"]) => void;
  onError?: (err: string) => void;
}

/**
 * The console's webhook parts: endpoints and maintenance windows (with a database), the sender, and the alert sink
 * (with endpoints): maintenance holds (kept in the database, `gate.restore()` once it is migrated) in front of the
 * dispatcher.
 */
export function webhooksFromConfig(
  config: ConsoleConfig,
  db: Db | undefined,
  now: () => number,
  scheduler: Scheduler = wallClock,
  holds: HoldSeams = { stillFiring: () => false },
): {
  endpoints: WebhookEndpoints | undefined;
  windows: MaintenanceWindows | undefined;
  sender: WebhookSender;
  sink: AlertTransitionSink | undefined;
  gate: MaintenanceGate | undefined;
} {
  const endpoints = db
    ? new WebhookEndpoints(db, now, SecretBox.fromFile(config.webhooks.encryptionKeyFile))
    : undefined;
  const windows = db ? new MaintenanceWindows(db, now) : undefined;
  const sender = new WebhookSender({
    scheduler,
    onAttempt: (t, o, final) => endpoints?.recordOutcome(t.endpointId, o, final),
  });
  const dispatcher = endpoints ? new WebhookDispatcher(endpoints, sender, now) : undefined;
  const gate =
    dispatcher && windows && db
      ? new MaintenanceGate({
          next: dispatcher,
          windows: (labels, at) => windows.matching(labels, at),
          stillFiring: holds.stillFiring,
          scheduler,
          store: new SqlHoldStore(db, now),
          retryMs: config.webhooks.alertPollInterval,
          ...(holds.onSuppressed ? { onSuppressed: holds.onSuppressed } : {}),
          ...(holds.onError ? { onError: holds.onError } : {}),
        })
      : undefined;
  return { endpoints, windows, sender, sink: gate ?? dispatcher, gate };
}
