/**
 * Check definitions (spec §2.6, §2.12, §4.3, §7, §8.1): a check type on a target, run continuously by the agents a
 * source selection picks, as external-check specs the console keeps sent to the controller. Reading needs
 * `checks:read`; managing needs `checks:read` too (the operator's "read/manage check definitions" grant of §5.3 has
 * no permission of its own; docs/decisions.md, "Console operations"). A definition that no live agent could run is
 * refused with 422 (create; edit only when it stays enabled; `enabled: false` always saves). Audited; database.
 */
import { z } from "zod";
import { errors } from "./errors.ts";
import { idFrom, route } from "./route.ts";
import { JSON_MAX_DEPTH, jsonValueProblem, nameText, text } from "./strings.ts";

/** Largest `params`, in bytes of its JSON (spec §8.1). */
export const CHECK_PARAMS_MAX_BYTES = 4096;

/** Check types a definition may use: the external-check types of spec §2.6. */
export const CHECK_TYPES = ["tcp", "icmp", "dns", "http"] as const;
export const CheckType = z.enum(CHECK_TYPES);
export type CheckType = z.infer<typeof CheckType>;

/** Which agents run a definition: every agent able to (both lists empty), or those on the named nodes or zones. */
export const SourceSelection = z
  .strictObject({
    nodes: z.array(nameText(253).min(1)).max(1000).default([]),
    zones: z.array(nameText(253).min(1)).max(1000).default([]),
  })
  .meta({ id: "SourceSelectionInput" });
export type SourceSelection = z.infer<typeof SourceSelection>;

/** A source selection as the API shows it. */
export const SourceSelectionView = z
  .object({ nodes: z.array(z.string()), zones: z.array(z.string()) })
  .meta({ id: "SourceSelection" });

const params = z
  .record(z.string(), z.unknown())
  // keys and text storable in a jsonb column, nesting bounded (a deeper value answers 400, not a stack overflow)
  .superRefine((p, ctx) => {
    const why = jsonValueProblem(p, "params");
    if (why) ctx.addIssue({ code: "custom", message: why, input: p, continue: false });
  })
  .refine((p) => new TextEncoder().encode(JSON.stringify(p)).length <= CHECK_PARAMS_MAX_BYTES, {
    message: `must be at most ${CHECK_PARAMS_MAX_BYTES} bytes of JSON`,
  })
  .describe(
    `check-type parameters (dns: \`query\`, the name asked of the target resolver); nesting at most ${JSON_MAX_DEPTH}`,
  );

/** A check definition as the API shows it. */
export const CheckDefinition = z
  .object({
    id: z.string(),
    name: z.string(),
    targetId: z.string(),
    type: CheckType,
    params: z.record(z.string(), z.unknown()),
    sources: SourceSelectionView,
    intervalSeconds: z.number(),
    timeoutSeconds: z.number(),
    enabled: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "CheckDefinition" });
export type CheckDefinition = z.infer<typeof CheckDefinition>;

/** Body of a create, an edit or a projection. */
export const CheckInput = z.strictObject({
  name: nameText(128).min(1),
  targetId: text(64).min(1),
  type: CheckType,
  params: params.default({}),
  sources: SourceSelection.default({ nodes: [], zones: [] }),
  intervalSeconds: z.number().min(1).max(3600).default(30),
  timeoutSeconds: z.number().min(0.001).max(60).default(5),
  enabled: z.boolean().default(true),
});
export type CheckInput = z.infer<typeof CheckInput>;

/** One agent a definition would run on. */
export const ProjectedAgent = z.object({ id: z.string(), nodeName: z.string(), zone: z.string() });

/** What a draft would do: the agents that would run it, and why it cannot run when none would. */
export const CheckProjection = z
  .object({
    runnable: z.boolean(),
    agents: z.array(ProjectedAgent),
    reasons: z.array(z.string()).describe("why agents were left out, or why the draft cannot run at all"),
  })
  .meta({ id: "CheckProjection" });
export type CheckProjection = z.infer<typeof CheckProjection>;

/** Path parameters naming a definition; unknown and malformed ids are both 404. */
export const CheckIdParams = z.object({ id: text(64) });

export const listChecks = route({
  name: "listChecks",
  method: "GET",
  path: "/api/v1/checks",
  tag: "checks",
  summary: "Check definitions, by name",
  description: "`targetId` keeps the definitions of one target. 503 without a database.",
  access: "checks:read",
  spec: true,
  query: z.object({ targetId: text(64).optional() }),
  responses: { 200: z.object({ checks: z.array(CheckDefinition) }), ...errors(400, 401, 403, 503) },
});

export const createCheck = route({
  name: "createCheck",
  method: "POST",
  path: "/api/v1/checks",
  tag: "checks",
  summary: "Creates a check definition",
  description:
    "400 for params over 4096 bytes or nested deeper than 16; 422 for an unknown target, a type the target's kind cannot take, or (when " +
    "enabled) a definition no live agent could run (planes, `external-checks`); 502 when the controller cannot " +
    "be asked. Audited.",
  access: "checks:read",
  spec: true,
  body: CheckInput,
  example: {
    name: "node-3 agent tcp",
    targetId: idFrom("createTarget"),
    type: "tcp",
    sources: { nodes: ["node-1", "node-2"], zones: [] },
    intervalSeconds: 30,
  },
  responses: { 201: CheckDefinition, ...errors(400, 401, 403, 422, 502, 503) },
});

export const updateCheck = route({
  name: "updateCheck",
  method: "PUT",
  path: "/api/v1/checks/{id}",
  tag: "checks",
  summary: "Replaces a check definition",
  description:
    "404 for an unknown or malformed id; judged for runnability only when it stays enabled (`enabled: false` " +
    "always saves). Audited.",
  access: "checks:read",
  spec: true,
  params: CheckIdParams,
  body: CheckInput,
  example: { name: "node-3 agent tcp", targetId: idFrom("createTarget"), type: "tcp", enabled: false },
  responses: { 200: CheckDefinition, ...errors(400, 401, 403, 404, 422, 502, 503) },
});

export const deleteCheck = route({
  name: "deleteCheck",
  method: "DELETE",
  path: "/api/v1/checks/{id}",
  tag: "checks",
  summary: "Deletes a check definition",
  description: "404 for an unknown or malformed id; 409 while a schedule uses it. Audited.",
  access: "checks:read",
  spec: false,
  params: CheckIdParams,
  responses: { 204: null, ...errors(401, 403, 404, 409, 503) },
});

export const projectCheck = route({
  name: "projectCheck",
  method: "POST",
  path: "/api/v1/checks/projection",
  tag: "checks",
  summary: "Which live agents would run a draft definition (stores nothing)",
  description:
    "Never 422: a draft that cannot run answers `runnable: false` with the reasons. Audited (the call, not a definition).",
  access: "checks:read",
  spec: true,
  body: CheckInput,
  example: {
    name: "draft",
    targetId: idFrom("createTarget"),
    type: "tcp",
    sources: { nodes: ["node-1"], zones: [] },
  },
  responses: { 200: CheckProjection, ...errors(400, 401, 403, 502, 503) },
});
