/**
 * Incidents (spec §2.9, §3.1, §4.3, §6.3): what an operator saved from an investigation (Save as incident), with a
 * lifecycle Open -> Resolved -> Open, notes, and pinned findings. `GET /api/v1/incidents` is the spec's path; the
 * other paths are the console's choice (§4.3 leaves them open). Reading needs `incidents:read`, writing
 * `incidents:write`; every write is audited; all need the database (503 without one). Unknown and malformed ids
 * alike are 404. Lifecycle changes send `incident.created`, `incident.resolved` and `incident.reopened` webhooks.
 */
import { z } from "zod";
import { errors } from "./errors.ts";
import { TIMELINE_KINDS } from "./investigation-kinds.ts";
import { route } from "./route.ts";
import { nameText, text } from "./strings.ts";

/** Scope kinds an incident is stored with (spec §2.9). */
export const INCIDENT_SCOPE_KINDS = ["pair", "node", "target", "global"] as const;
export type IncidentScopeKind = (typeof INCIDENT_SCOPE_KINDS)[number];
/** Kinds Save as incident accepts: an investigation's (§2.10); `zone-pair` and `cluster` save as `global` (§3.1). */
export const INCIDENT_INPUT_KINDS = ["pair", "node", "target", "zone-pair", "cluster", "global"] as const;
/** Incident states (spec §3.1). */
export const INCIDENT_STATUSES = ["open", "resolved"] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];
/** Values of the list's `status` filter (All / Open / Resolved). */
export const INCIDENT_FILTERS = ["all", "open", "resolved"] as const;

/** Incidents per list page (spec §8.1). */
export const INCIDENT_PAGE_SIZE = 50;
/** Pages an incident scan (Overview cards) reads at most (spec §4.4, §8.1). */
export const INCIDENT_SCAN_PAGES = 50;
/** Longest title. */
export const INCIDENT_TITLE_MAX = 200;
/** Longest notes. */
export const INCIDENT_NOTES_MAX = 16_384;
/** Pinned findings one incident holds at most. */
export const INCIDENT_PINS_MAX = 50;
/** Longest why-this-matters note of a pinned finding. */
export const PIN_NOTE_MAX = 2048;

// a high surrogate not followed by a low one, or a low surrogate not preceded by a high one (cannot be stored)
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Free text whose control characters the handler judges (422: spec §2.9 and §7 make a control character other than
 * line break or tab in notes a 422, not a malformed request); bounded, and no lone surrogate (400).
 */
const freeText = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => !LONE_SURROGATE.test(s), { message: "must not contain unpaired surrogate characters" });

const instant = (key: string) =>
  z.iso.datetime({ offset: true, message: `${key} must be an ISO 8601 instant` });

/** A pinned finding as a caller sends it: a timeline row (§2.10) plus a why-this-matters note. */
export const PinInput = z.strictObject({
  timestamp: instant("timestamp"),
  kind: z.enum(TIMELINE_KINDS, { message: `kind must be one of ${TIMELINE_KINDS.join(", ")}` }),
  severity: text(32).default(""),
  title: text(512),
  detail: text(4096).default(""),
  reference: text(2048).default("").describe("where the row came from (an event id, a run id, a URL path)"),
  note: freeText(PIN_NOTE_MAX)
    .default("")
    .describe("why this matters; line breaks and tabs kept, any other control character 422"),
});
export type PinInput = z.infer<typeof PinInput>;

/** A stored pinned finding, labelled with the badge word of its kind. */
export const PinnedFinding = z
  .object({
    id: z.string(),
    timestamp: z.string(),
    kind: z.string(),
    badge: z.string().describe("the timeline badge word of its kind"),
    severity: z.string(),
    title: z.string(),
    detail: z.string(),
    reference: z.string(),
    note: z.string(),
    pinnedAt: z.string(),
    pinnedBy: z.string().describe("display name of who pinned it"),
  })
  .meta({ id: "PinnedFinding" });
export type PinnedFinding = z.infer<typeof PinnedFinding>;

/** Body of Save as incident: an investigation's committed parameters, a title, notes and findings to pin. */
export const IncidentInput = z.strictObject({
  kind: z.enum(INCIDENT_INPUT_KINDS, { message: `kind must be one of ${INCIDENT_INPUT_KINDS.join(", ")}` }),
  scope: nameText(512)
    .default("")
    .describe('pair "<source>-><destination>", node name or target id; ignored for the global kinds'),
  from: instant("from").describe("window start"),
  to: instant("to").describe("window end"),
  title: freeText(INCIDENT_TITLE_MAX).describe("one line: no control character (422)"),
  notes: freeText(INCIDENT_NOTES_MAX)
    .default("")
    .describe("line breaks and tabs kept, any other control character 422"),
  pins: z.array(PinInput).max(INCIDENT_PINS_MAX).default([]),
});
export type IncidentInput = z.infer<typeof IncidentInput>;

/** An incident. Under the Time Machine (`at`) `status` and `resolvedAt` are as of that instant. */
export const Incident = z
  .object({
    id: z.string(),
    status: z.enum(INCIDENT_STATUSES),
    kind: z.enum(INCIDENT_SCOPE_KINDS),
    scope: z.string().describe('"" for global'),
    from: z.string().describe("window start"),
    to: z.string().describe("window end"),
    title: z.string(),
    notes: z.string(),
    openedBy: z.string().describe("subject identifier of whoever saved it"),
    openedByDisplay: z.string(),
    openedAt: z.string(),
    resolvedAt: z.string().nullable().describe("when it was (last) resolved, while resolved; else null"),
    updatedAt: z.string(),
    permalink: z.string().describe("/investigate?incident=<id>"),
    pins: z.array(PinnedFinding),
  })
  .meta({ id: "Incident" });
export type Incident = z.infer<typeof Incident>;

/** A list cursor: opaque to callers, answered as `nextCursor`. */
export const IncidentCursor = z
  .string()
  .max(200)
  .regex(/^[A-Za-z0-9_-]{1,200}$/, "cursor must be a nextCursor value from an earlier page");

/** Query of GET /api/v1/incidents. */
export const IncidentsQuery = z.object({
  status: z
    .string()
    .max(16)
    // spec §4.3 names the filter's values All / Open / Resolved: any case is read as the lowercase word
    .transform((s) => s.toLowerCase())
    .pipe(
      z.enum(INCIDENT_FILTERS, {
        message: `status must be one of ${INCIDENT_FILTERS.join(", ")} (any case)`,
      }),
    )
    .default("all")
    .describe("all, open or resolved, in any case (All / Open / Resolved)"),
  cursor: IncidentCursor.optional().describe("a nextCursor: the page after it (older incidents)"),
  at: instant("at")
    .optional()
    .describe("the Time Machine: incidents declared by then, each with its status as of then"),
});
export type IncidentsQuery = z.infer<typeof IncidentsQuery>;

/** Query of GET /api/v1/incidents/{id}. */
export const IncidentQuery = z.object({
  at: instant("at").optional().describe("the Time Machine: status as of then; 404 if declared later"),
});

/** Path parameters naming an incident; anything but an incident id is answered 404. */
export const IncidentIdParams = z.object({ id: text(64) });
/** Path parameters naming a pinned finding. */
export const PinIdParams = z.object({ id: text(64), pinId: text(64) });

/** Body of a notes edit. */
export const IncidentNotesInput = z.strictObject({
  notes: freeText(INCIDENT_NOTES_MAX).describe("line breaks and tabs kept, any other control character 422"),
});

/** A valid body: node-2 over an hour. */
export const INCIDENT_EXAMPLE = {
  kind: "node",
  scope: "node-2",
  from: "2026-01-01T02:00:00Z",
  to: "2026-01-01T03:00:00Z",
  title: "node-2 dropping udp",
  notes: "Seen from node-1 and node-3.\n\tLink flaps on the switch port.",
} as const;

/** A valid pinned finding. */
export const PIN_EXAMPLE = {
  timestamp: "2026-01-01T02:04:00Z",
  kind: "k8s-event",
  severity: "warn",
  title: "NodeNotReady node-2",
  detail: "kubelet stopped posting node status",
  reference: "k8s-event/node-2",
  note: "Three minutes before the loss started.",
} as const;

const incidentErrors = errors(401, 403, 404, 503);

export const listIncidents = route({
  name: "listIncidents",
  method: "GET",
  path: "/api/v1/incidents",
  tag: "incidents",
  summary: "Incidents, newest first, 50 per page, with a keyset cursor",
  description:
    "`status` filters all, open or resolved; `at` (the Time Machine) lists incidents declared by then, an incident " +
    "counting as resolved only if resolved by then. 400 for a malformed cursor or filter; 503 without a database.",
  access: "incidents:read",
  spec: true,
  query: IncidentsQuery,
  responses: {
    200: z.object({
      incidents: z.array(Incident),
      nextCursor: z
        .string()
        .nullable()
        .describe("pass as `cursor` for the next (older) page; null at the end"),
    }),
    ...errors(400, 401, 403, 503),
  },
});

export const getIncident = route({
  name: "getIncident",
  method: "GET",
  path: "/api/v1/incidents/{id}",
  tag: "incidents",
  summary: "One incident",
  description: "404 for an unknown or malformed id (and, with `at`, one declared after it).",
  access: "incidents:read",
  spec: false,
  params: IncidentIdParams,
  query: IncidentQuery,
  responses: { 200: Incident, ...errors(400, 401, 403, 404, 503) },
});

export const createIncident = route({
  name: "createIncident",
  method: "POST",
  path: "/api/v1/incidents",
  tag: "incidents",
  summary: "Save as incident: opens an incident",
  description:
    "A zone-pair or cluster scope saves as global. 422 for a blank title or one with a control character, notes or " +
    "a pin note with a control character other than line break or tab, a window that does not end after it " +
    "starts, a pair/node/target kind without its scope, a pin of a maintenance window, threshold crossing or " +
    "firing alert. Sends `incident.created`. Audited.",
  access: "incidents:write",
  spec: false,
  body: IncidentInput,
  example: INCIDENT_EXAMPLE,
  responses: { 201: Incident, ...errors(400, 401, 403, 422, 503) },
});

export const resolveIncident = route({
  name: "resolveIncident",
  method: "POST",
  path: "/api/v1/incidents/{id}/resolve",
  tag: "incidents",
  summary: "Resolves an open incident",
  description: "409 when it is already resolved. Sends `incident.resolved`. Audited.",
  access: "incidents:write",
  spec: false,
  params: IncidentIdParams,
  responses: { 200: Incident, ...incidentErrors, ...errors(409) },
});

export const reopenIncident = route({
  name: "reopenIncident",
  method: "POST",
  path: "/api/v1/incidents/{id}/reopen",
  tag: "incidents",
  summary: "Reopens a resolved incident",
  description: "409 when it is open. Sends `incident.reopened`. Audited.",
  access: "incidents:write",
  spec: false,
  params: IncidentIdParams,
  responses: { 200: Incident, ...incidentErrors, ...errors(409) },
});

export const updateIncidentNotes = route({
  name: "updateIncidentNotes",
  method: "PUT",
  path: "/api/v1/incidents/{id}/notes",
  tag: "incidents",
  summary: "Replaces an incident's notes",
  description: "422 for a control character other than line break or tab. Audited.",
  access: "incidents:write",
  spec: false,
  params: IncidentIdParams,
  body: IncidentNotesInput,
  example: { notes: "Switch port replaced at 03:10.\nLoss gone since." },
  responses: { 200: Incident, ...errors(400, 401, 403, 404, 422, 503) },
});

export const pinFinding = route({
  name: "pinFinding",
  method: "POST",
  path: "/api/v1/incidents/{id}/pins",
  tag: "incidents",
  summary: "Pins a timeline row to an incident",
  description:
    "422 for a maintenance window, threshold crossing or firing alert, a note with a control character other than " +
    `line break or tab, or an incident already holding ${INCIDENT_PINS_MAX} findings. Audited.`,
  access: "incidents:write",
  spec: false,
  params: IncidentIdParams,
  body: PinInput,
  example: PIN_EXAMPLE,
  responses: { 201: Incident, ...errors(400, 401, 403, 404, 422, 503) },
});

export const unpinFinding = route({
  name: "unpinFinding",
  method: "DELETE",
  path: "/api/v1/incidents/{id}/pins/{pinId}",
  tag: "incidents",
  summary: "Removes a pinned finding",
  description: "404 for an unknown incident or finding. Audited.",
  access: "incidents:write",
  spec: false,
  params: PinIdParams,
  responses: { 204: null, ...incidentErrors },
});

export const deleteIncident = route({
  name: "deleteIncident",
  method: "DELETE",
  path: "/api/v1/incidents/{id}",
  tag: "incidents",
  summary: "Deletes an incident (open or resolved)",
  description: "The console asks for a second press before it calls this. 404 for an unknown id. Audited.",
  access: "incidents:write",
  spec: false,
  params: IncidentIdParams,
  responses: { 204: null, ...incidentErrors },
});
