/**
 * Handlers of the webhook endpoint routes (contract: @svc/contract webhooks.ts): all `webhooks:manage`; every write
 * audited; 503 without a database, and for secrets and send tests without webhooks.encryptionKeyFile.
 */
import * as c from "@svc/contract";
import { UnavailableError } from "../errors.ts";
import type { NewAuditRow } from "../store/store.ts";
import { testBody } from "../webhooks/dispatcher.ts";
import type { WebhookEndpoints } from "../webhooks/endpoints.ts";
import type { WebhookSender } from "../webhooks/sender.ts";
import type { AddRoute } from "./register.ts";

/** Dependencies of the webhook routes. */
export interface WebhookRouteDeps {
  /** undefined without a database (503) */
  endpoints: WebhookEndpoints | undefined;
  sender: WebhookSender;
  now: () => number;
  /** appends an audit row (a send test is recorded before it is sent: no row, no send) */
  audit: (row: Omit<NewAuditRow, "at">) => Promise<void>;
}

/** Registers the webhook endpoint routes. */
export function addWebhookRoutes(add: AddRoute, deps: WebhookRouteDeps): void {
  const endpoints = (): WebhookEndpoints => {
    if (!deps.endpoints) throw new UnavailableError("webhook endpoints need the database");
    return deps.endpoints;
  };
  add(c.listWebhooks, async () => ({ endpoints: await endpoints().list() }));
  add(c.createWebhook, ({ body, actor }) => endpoints().create(body, actor));
  add(c.updateWebhook, ({ params, body, actor }) => endpoints().update(params.id, body, actor));
  add(c.deleteWebhook, async ({ params, actor }) => {
    await endpoints().delete(params.id, actor);
  });
  add(c.testWebhook, async ({ params, actor }) => {
    const target = await endpoints().target(params.id);
    await deps.audit({ ...actor, outcome: "allowed", detail: { endpointId: target.endpointId } });
    const o = await deps.sender.sendOnce(target, testBody(target.endpointId, deps.now()));
    return {
      ok: o.ok,
      at: new Date(o.at).toISOString(),
      attempt: o.attempt,
      status: o.status,
      error: o.error,
    };
  });
}
