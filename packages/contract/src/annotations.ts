/**
 * Operator annotations (spec §2.11, §2.12; paths are the console's choice, spec §4.3 leaves them open): point notes
 * (badge Note) and ranged ones (badge Annotation (span)), interleaved with the feed but not events. Reading needs
 * `annotations:read`; writing needs `incidents:write` (the operator's "write annotations, incidents, maintenance
 * windows" grant of §5.3 has no permission of its own). Every write is audited; all need the database.
 */
import { z } from "zod";
import { errors } from "./errors.ts";
import { route } from "./route.ts";
import { nameText, noteText, text } from "./strings.ts";

/** Longest annotation text. */
export const ANNOTATION_TEXT_MAX = 4096;
/** Annotations one list answer holds at most. */
export const ANNOTATION_PAGE_MAX = 500;

/** An annotation as the API shows it. */
export const Annotation = z
  .object({
    id: z.string(),
    at: z.string().describe("ISO 8601: the instant (point) or the start (span)"),
    endAt: z.string().nullable().describe("ISO 8601 end of a span; null for a point note"),
    text: z.string(),
    scope: z
      .string()
      .describe('"" for the whole fleet, else a node name or a pair "<source>-><destination>"'),
    author: z.string().describe("display name of the subject that wrote it last"),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "Annotation" });
export type Annotation = z.infer<typeof Annotation>;

// Line breaks and tabs are kept; any other control character is refused (as for incident notes, spec §2.9).
const annotationText = noteText(ANNOTATION_TEXT_MAX);
const instant = (key: string) =>
  z.iso.datetime({ offset: true, message: `${key} must be an ISO 8601 instant` });

/**
 * Body of a create or an edit: `endAt` absent or null makes a point note. A malformed body is 400; a well-formed
 * one the console cannot apply is 422: a text that is empty or only white space, a span that does not end after
 * it starts (checked by the handler, so the statuses stay apart).
 */
export const AnnotationInput = z.strictObject({
  at: instant("at"),
  endAt: instant("endAt").nullable().optional(),
  text: annotationText,
  scope: nameText(512).default(""),
});
export type AnnotationInput = z.infer<typeof AnnotationInput>;

/** Path parameters naming an annotation; anything but an annotation id is answered 404. */
export const AnnotationIdParams = z.object({ id: text(64) });

export const listAnnotations = route({
  name: "listAnnotations",
  method: "GET",
  path: "/api/v1/annotations",
  tag: "annotations",
  summary: "Annotations overlapping a window, newest first (at most 500)",
  description: "503 without a database.",
  access: "annotations:read",
  spec: false,
  query: z.object({
    from: instant("from").optional(),
    to: instant("to").optional(),
    scope: text(512).optional().describe("case-insensitive substring, pairs normalised as for events"),
  }),
  responses: { 200: z.object({ annotations: z.array(Annotation) }), ...errors(400, 401, 403, 503) },
});

export const createAnnotation = route({
  name: "createAnnotation",
  method: "POST",
  path: "/api/v1/annotations",
  tag: "annotations",
  summary: "Writes a point note or a ranged annotation",
  description:
    "422 for an empty text or a span that does not end after it starts. 503 without a database. Audited.",
  access: "incidents:write",
  spec: false,
  body: AnnotationInput,
  example: {
    at: "2026-01-01T02:00:00Z",
    endAt: "2026-01-01T03:00:00Z",
    text: "switch firmware upgrade",
    scope: "node-2",
  },
  responses: { 201: Annotation, ...errors(400, 401, 403, 422, 503) },
});

export const updateAnnotation = route({
  name: "updateAnnotation",
  method: "PUT",
  path: "/api/v1/annotations/{id}",
  tag: "annotations",
  summary: "Replaces an annotation's instant, end, text and scope",
  description: "404 for an unknown id. Audited.",
  access: "incidents:write",
  spec: false,
  params: AnnotationIdParams,
  body: AnnotationInput,
  example: {
    at: "2026-01-01T02:00:00Z",
    endAt: "2026-01-01T03:30:00Z",
    text: "switch firmware upgrade, ran long",
    scope: "node-2",
  },
  responses: { 200: Annotation, ...errors(400, 401, 403, 404, 422, 503) },
});

export const deleteAnnotation = route({
  name: "deleteAnnotation",
  method: "DELETE",
  path: "/api/v1/annotations/{id}",
  tag: "annotations",
  summary: "Deletes an annotation",
  description: "404 for an unknown id. Audited.",
  access: "incidents:write",
  spec: false,
  params: AnnotationIdParams,
  responses: { 204: null, ...errors(401, 403, 404, 503) },
});
