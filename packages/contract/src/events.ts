/**
 * Event history (GET /api/v1/events, spec §4.3, `events:read`, database) and cluster events
 * (GET /api/v1/k8s-events, `events:read`). A feed event is what the controller's event stream carried (spec §6.1),
 * stored by the console; the live topic of /ws carries the same shape.
 */
import { z } from "zod";
import { errors } from "./errors.ts";
import { route } from "./route.ts";
import { text } from "./strings.ts";

/** The event types of spec §2.11, in the order the Type filter lists them. */
export const EVENT_TYPES = [
  "TopologyChanged",
  "CheckObserved",
  "MTRTriggered",
  "MTRCompleted",
  "DiagnosticProgress",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Severities the Severity filter offers (spec §2.11). An event may carry another wire value; it renders raw. */
export const EVENT_SEVERITIES = ["info", "warn", "error"] as const;
export type EventSeverity = (typeof EVENT_SEVERITIES)[number];

/** Rows one history page holds at most (spec §8.1: rail history is the newest 50 per object). */
export const EVENT_PAGE_MAX = 200;
/** Rows a history page holds when `limit` is not given. */
export const EVENT_PAGE_DEFAULT = 50;

/** One stored event. `type` and `severity` are the controller's wire strings, kept as they came. */
export const FeedEvent = z
  .object({
    id: z.string().describe("stable id of the stored row (also the history cursor's anchor)"),
    at: z.string().describe("ISO 8601: when the controller stamped the event"),
    type: z
      .string()
      .describe("TopologyChanged, CheckObserved, MTRTriggered, MTRCompleted or DiagnosticProgress"),
    severity: z.string().describe("info, warn or error; another wire value is kept and shown raw"),
    scope: z.string().describe('node name, or a pair written "<source>-><destination>"'),
    summary: z.string().describe("one line, opening with the type's words"),
    payload: z.record(z.string(), z.unknown()).describe("the type-specific body the controller sent"),
  })
  .meta({ id: "FeedEvent" });
export type FeedEvent = z.infer<typeof FeedEvent>;

/**
 * A scope filter as both ends compare it (spec §4.4): lower case, and a pair written `a->b`, `a => b` or `a > b`
 * becomes `a->b`. Stored scopes pass through the same function, so a substring test on the results matches alike.
 */
export function normalizeScope(s: string): string {
  return s
    .trim()
    .toLowerCase()
    .replace(/\s*(?:->|=>|>)\s*/g, "->");
}

/** A history cursor: opaque to callers, answered as `nextCursor`. */
export const EventCursor = z
  .string()
  .max(200)
  .regex(/^[A-Za-z0-9_-]{1,200}$/, "cursor must be a nextCursor value from an earlier page");

/** Query of GET /api/v1/events. */
export const EventsQuery = z.object({
  scope: text(512)
    .optional()
    .describe("case-insensitive substring; a pair written a->b, a => b or a > b matches alike"),
  type: z.enum(EVENT_TYPES, { message: `type must be one of ${EVENT_TYPES.join(", ")}` }).optional(),
  severity: z
    .enum(EVENT_SEVERITIES, { message: `severity must be one of ${EVENT_SEVERITIES.join(", ")}` })
    .optional(),
  before: EventCursor.optional().describe("a nextCursor: the page after it (older events)"),
  until: z.iso
    .datetime({ offset: true, message: "until must be an ISO 8601 instant" })
    .optional()
    .describe("only events at or before this instant (the Time Machine)"),
  limit: z.coerce
    .number({ message: "limit must be a number" })
    .int("limit must be an integer")
    .min(1, "limit must be at least 1")
    .max(EVENT_PAGE_MAX, `limit must be at most ${EVENT_PAGE_MAX}`)
    .default(EVENT_PAGE_DEFAULT),
});
export type EventsQuery = z.infer<typeof EventsQuery>;

export const listEvents = route({
  name: "listEvents",
  method: "GET",
  path: "/api/v1/events",
  tag: "events",
  summary: "Event history, newest first, with a keyset cursor",
  description:
    "503 `unavailable` on a console without a database (no event history). 400 for a malformed cursor or filter.",
  access: "events:read",
  spec: true,
  query: EventsQuery,
  responses: {
    200: z.object({
      events: z.array(FeedEvent),
      nextCursor: z
        .string()
        .nullable()
        .describe("pass as `before` for the next (older) page; null at the end"),
    }),
    ...errors(400, 401, 403, 503),
  },
});

/** One captured Kubernetes Event (console.kubernetesContext.enabled). */
export const K8sEvent = z
  .object({
    id: z.string().describe("the Event object's uid"),
    at: z.string().describe("ISO 8601: last time the event was seen"),
    firstAt: z.string().describe("ISO 8601: first time the event was seen"),
    type: z.string().describe("Normal or Warning (raw)"),
    reason: z.string(),
    message: z.string(),
    namespace: z.string(),
    object: z.string().describe('involved object, written "<Kind>/<name>"'),
    node: z.string().nullable().describe("the node the event concerns, when it names one"),
    count: z.number().int(),
  })
  .meta({ id: "K8sEvent" });
export type K8sEvent = z.infer<typeof K8sEvent>;

/** Cluster events one answer holds at most (spec §4.3). */
export const K8S_EVENTS_MAX = 200;

export const listK8sEvents = route({
  name: "listK8sEvents",
  method: "GET",
  path: "/api/v1/k8s-events",
  tag: "events",
  summary: "Captured cluster events in a window, newest first, up to 200",
  description:
    "`enabled` is false when console.kubernetesContext.enabled is off (the list is then empty). " +
    "400 when `from` is after `to`.",
  access: "events:read",
  spec: true,
  query: z.object({
    from: z.iso.datetime({ offset: true, message: "from must be an ISO 8601 instant" }).optional(),
    to: z.iso.datetime({ offset: true, message: "to must be an ISO 8601 instant" }).optional(),
    node: text(253).optional().describe("only events concerning this node"),
  }),
  responses: {
    200: z.object({
      enabled: z.boolean(),
      events: z.array(K8sEvent),
      truncated: z.boolean().describe("true when the window held more than 200"),
    }),
    ...errors(400, 401, 403),
  },
});
