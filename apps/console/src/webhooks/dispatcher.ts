/**
 * Turns alert transitions into webhook deliveries (spec §2.13, §6.3): one body per transition, the same bytes for
 * every subscribed endpoint and every attempt; `sentAt` is the delivery's time. Alert family keys: `event`,
 * `alert.ruleId`, `alert.labels`, `alert.firedAt`, `alert.resolvedAt` (null on alert.fired: every key of the family
 * on every delivery), `sentAt`, and the extension `suspects` (where is the fault when the transition was seen: the
 * suspects whose matrix blocks hold the alert's pair or node first, flagged `explainsAlert`; at most 3; empty when
 * none, or when the localization could not answer within SUSPECTS_WAIT_MS: a delivery never waits longer).
 * Deliveries are not awaited: retries wait on the sender's scheduler.
 */
import type { FleetSuspects, Suspect } from "@svc/contract";
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

/** The longest a transition's deliveries wait for the suspects. */
export const SUSPECTS_WAIT_MS = 3000;

/** A suspect as a webhook carries it. */
export interface WebhookSuspect {
  id: string;
  kind: Suspect["kind"];
  mode: Suspect["mode"];
  element: { node?: string; zones?: string[]; source?: string; destination?: string };
  protocols: string[];
  confidence: number;
  evidence: string;
  /** its matrix blocks hold the alert's pair (source_node/destination_node) or node (node, source_node) */
  explainsAlert: boolean;
}

/** The suspects of a fleet answer for an alert's labels: those that explain it first, at most 3. */
export function suspectsFor(
  labels: Record<string, string>,
  answer: FleetSuspects | undefined,
): WebhookSuspect[] {
  const src = labels.source_node;
  const dst = labels.destination_node;
  const node = labels.node ?? (dst === undefined ? src : undefined);
  const holds = (s: Suspect) =>
    s.scope.some((b) =>
      src !== undefined && dst !== undefined
        ? (b.sources === null || b.sources.includes(src)) &&
          (b.destinations === null || b.destinations.includes(dst))
        : node !== undefined &&
          (b.sources === null ||
            b.destinations === null ||
            b.sources.includes(node) ||
            b.destinations.includes(node)),
    );
  return (answer?.suspects ?? [])
    .filter((s) => s.role === "suspect")
    .map((s) => ({ s, explains: holds(s) }))
    .sort((a, b) => Number(b.explains) - Number(a.explains))
    .slice(0, 3)
    .map(({ s, explains }) => ({
      id: s.id,
      kind: s.kind,
      mode: s.mode,
      element: {
        ...(s.node ? { node: s.node } : {}),
        ...(s.zones ? { zones: s.zones } : {}),
        ...(s.source ? { source: s.source, destination: s.destination } : {}),
      },
      protocols: s.protocols,
      confidence: s.confidence,
      evidence: s.evidence[0] ?? "",
      explainsAlert: explains,
    }));
}

/** The alert-family body of one transition. */
export function alertBody(
  t: AlertTransition,
  sentAt: number,
  suspects: readonly WebhookSuspect[] = [],
): Buffer {
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
      suspects,
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
  private suspects: (() => Promise<FleetSuspects>) | undefined;

  constructor(
    private readonly endpoints: WebhookEndpoints,
    private readonly sender: WebhookSender,
    private readonly now: () => number,
  ) {}

  /** Where the suspects come from (the console's localization); without it `suspects` is always empty. */
  useSuspects(read: () => Promise<FleetSuspects>): void {
    this.suspects = read;
  }

  async transitions(batch: readonly AlertTransition[]): Promise<void> {
    let answer: Promise<FleetSuspects | undefined> | undefined;
    for (const t of batch) {
      const targets = await this.endpoints.targetsFor(t.event);
      if (targets.length === 0) continue;
      answer ??= this.readSuspects();
      const body = alertBody(t, this.now(), suspectsFor(t.labels, await answer));
      for (const target of targets) void this.sender.deliver(target, body);
    }
  }

  private readSuspects(): Promise<FleetSuspects | undefined> {
    const read = this.suspects;
    if (!read) return Promise.resolve(undefined);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((r) => {
      timer = setTimeout(() => r(undefined), SUSPECTS_WAIT_MS);
    });
    return Promise.race([read().catch(() => undefined), late]).finally(() => clearTimeout(timer));
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
  dispatcher: WebhookDispatcher | undefined;
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
  return { endpoints, windows, sender, sink: gate ?? dispatcher, gate, dispatcher };
}
