/**
 * Incident webhooks (spec §2.13, §6.3): `incident.created`, `incident.resolved` and `incident.reopened`, told to the
 * console by the request that caused them, go to every enabled endpoint subscribed to the event through the same
 * signed sender as alert deliveries (3 attempts, identical body and signature). Incident family keys, present on
 * every delivery: `event`, `incident.id`, `incident.title`, `incident.status`, `incident.kind`, `incident.scope`,
 * `incident.openedAt`, `incident.resolvedAt` (null while open), `incident.permalink`, `at` (the change's time:
 * with `event` and `incident.id` the dedupe key) and `sentAt` (per delivery).
 */
import type { WebhookEndpoints } from "../webhooks/endpoints.ts";
import type { WebhookSender } from "../webhooks/sender.ts";
import type { IncidentTransition } from "./incidents.ts";

/** The incident-family body of one change. */
export function incidentBody(t: IncidentTransition, sentAt: number): Buffer {
  const i = t.incident;
  return Buffer.from(
    JSON.stringify({
      event: t.event,
      incident: {
        id: i.id,
        title: i.title,
        status: i.status,
        kind: i.kind,
        scope: i.scope,
        openedAt: i.openedAt,
        resolvedAt: i.resolvedAt,
        permalink: i.permalink,
      },
      at: new Date(t.at).toISOString(),
      sentAt: new Date(sentAt).toISOString(),
    }),
  );
}

/** What the notifier needs. */
export interface IncidentNotifierDeps {
  endpoints: Pick<WebhookEndpoints, "targetsFor">;
  sender: Pick<WebhookSender, "deliver">;
  now: () => number;
  onError?: (err: string) => void;
}

/** Returns the `onTransition` of Incidents: delivers each change without holding up the request. */
export function incidentNotifier(deps: IncidentNotifierDeps): (t: IncidentTransition) => void {
  return (t) => {
    void (async () => {
      const targets = await deps.endpoints.targetsFor(t.event);
      if (targets.length === 0) return;
      const body = incidentBody(t, deps.now());
      for (const target of targets) void deps.sender.deliver(target, body);
    })().catch((e: unknown) => deps.onError?.(String(e)));
  };
}
