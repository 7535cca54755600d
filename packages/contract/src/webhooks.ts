/**
 * Webhook endpoints (spec §2.12, §6.3; paths are the console's choice, §4.3 leaves them open): url, subscribed
 * events (the closed set of five), enabled flag, signing secret (write-only: never in any response), last delivery
 * outcome and consecutive-failure streak. Every route needs `webhooks:manage`; every write is audited; all need the
 * database. Without `webhooks.encryptionKeyFile` creating an endpoint, setting a secret and sending a test answer 503.
 */
import { z } from "zod";
import { errors } from "./errors.ts";
import { route } from "./route.ts";
import { text } from "./strings.ts";

/** The subscribable events (spec §6.3). */
export const WEBHOOK_EVENTS = [
  "incident.created",
  "incident.resolved",
  "incident.reopened",
  "alert.fired",
  "alert.resolved",
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

const url = text(2048).refine(
  (s) => {
    try {
      const u = new URL(s);
      return (u.protocol === "http:" || u.protocol === "https:") && u.username === "" && u.password === "";
    } catch {
      return false;
    }
  },
  { message: "must be an absolute http(s) URL without credentials" },
);
const events = z
  .array(z.enum(WEBHOOK_EVENTS))
  .min(1)
  .max(WEBHOOK_EVENTS.length)
  .refine((a) => new Set(a).size === a.length, { message: "must not repeat an event" });
const secret = text(512).refine((s) => s.length >= 16, { message: "must be at least 16 characters" });

/** How the last delivery (or send test) to an endpoint went. */
export const WebhookOutcome = z
  .object({
    ok: z.boolean(),
    at: z.string().describe("ISO 8601 start of the last attempt"),
    attempt: z.number().int().describe("1-3"),
    status: z.number().int().nullable().describe("HTTP status, null when no answer"),
    error: z.string().nullable().describe("`failed: HTTP <status>`, `timeout` or `unreachable: ...`"),
  })
  .meta({ id: "WebhookOutcome" });

/** An endpoint as the API shows it (never its secret). */
export const WebhookEndpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENTS)),
    enabled: z.boolean(),
    lastOutcome: WebhookOutcome.nullable(),
    failureStreak: z.number().int().describe("deliveries failed in a row since the last success"),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "WebhookEndpoint" });
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

/** Body of a create: the signing secret is required. */
export const WebhookCreate = z.strictObject({
  url,
  events,
  enabled: z.boolean().default(true),
  secret: secret.describe("signing secret (write-only, encrypted at rest)"),
});
export type WebhookCreate = z.infer<typeof WebhookCreate>;

/** Body of an edit: a secret replaces the stored one; absent keeps it. */
export const WebhookUpdate = z.strictObject({
  url,
  events,
  enabled: z.boolean().default(true),
  secret: secret.optional().describe("absent: the stored secret stays"),
});
export type WebhookUpdate = z.infer<typeof WebhookUpdate>;

/** Path parameters naming an endpoint; anything but an endpoint id is answered 404. */
export const WebhookIdParams = z.object({ id: text(64) });

/** A valid create body (a receiver on loopback), for docs and tests. */
export const WEBHOOK_EXAMPLE = {
  url: "http://127.0.0.1:9000/hooks/svc",
  events: ["alert.fired", "alert.resolved"],
  enabled: true,
  secret: "change-me-to-a-long-random-secret",
} as const;

export const listWebhooks = route({
  name: "listWebhooks",
  method: "GET",
  path: "/api/v1/webhooks",
  tag: "webhooks",
  summary: "Webhook endpoints with their last outcome and failure streak (never their secrets)",
  access: "webhooks:manage",
  spec: false,
  responses: { 200: z.object({ endpoints: z.array(WebhookEndpoint) }), ...errors(401, 403, 503) },
});

export const createWebhook = route({
  name: "createWebhook",
  method: "POST",
  path: "/api/v1/webhooks",
  tag: "webhooks",
  summary: "Adds a webhook endpoint",
  description: "503 without webhooks.encryptionKeyFile or without a database. Audited (never the secret).",
  access: "webhooks:manage",
  spec: false,
  body: WebhookCreate,
  example: WEBHOOK_EXAMPLE,
  responses: { 201: WebhookEndpoint, ...errors(400, 401, 403, 503) },
});

export const updateWebhook = route({
  name: "updateWebhook",
  method: "PUT",
  path: "/api/v1/webhooks/{id}",
  tag: "webhooks",
  summary: "Replaces an endpoint's url, events and enabled flag, and its secret when one is given",
  description: "404 for an unknown id; 503 for a new secret without webhooks.encryptionKeyFile. Audited.",
  access: "webhooks:manage",
  spec: false,
  params: WebhookIdParams,
  body: WebhookUpdate,
  example: { url: WEBHOOK_EXAMPLE.url, events: WEBHOOK_EXAMPLE.events, enabled: false },
  responses: { 200: WebhookEndpoint, ...errors(400, 401, 403, 404, 503) },
});

export const deleteWebhook = route({
  name: "deleteWebhook",
  method: "DELETE",
  path: "/api/v1/webhooks/{id}",
  tag: "webhooks",
  summary: "Deletes a webhook endpoint",
  description: "404 for an unknown id. Audited.",
  access: "webhooks:manage",
  spec: false,
  params: WebhookIdParams,
  responses: { 204: null, ...errors(401, 403, 404, 503) },
});

export const testWebhook = route({
  name: "testWebhook",
  method: "POST",
  path: "/api/v1/webhooks/{id}/test",
  tag: "webhooks",
  summary: "Sends one signed test delivery (one attempt, event `webhook.test`) and answers its outcome",
  description:
    "A failed delivery is an outcome (200, ok false), not an error. 404 for an unknown id; 503 without " +
    "webhooks.encryptionKeyFile. Audited.",
  access: "webhooks:manage",
  spec: false,
  params: WebhookIdParams,
  responses: { 200: WebhookOutcome, ...errors(401, 403, 404, 503) },
});
