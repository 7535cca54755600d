/**
 * Role bindings (`/api/v1/rbac/bindings`, spec §4.3, `rbac:manage`), custom roles (`/api/v1/rbac/roles`, the
 * console's path) and the audit log (GET /api/v1/audit, `audit:read`, newest 200 rows).
 */
import { z } from "zod";
import { errors } from "./errors.ts";
import { route } from "./route.ts";
import { nameText, text } from "./strings.ts";

/** A binding of a subject (`local:<id>`, `oidc:<sub>`, `header:<user>`, `group:<name>`) to a role. */
export const RoleBinding = z
  .object({
    id: z.string(),
    subject: z.string(),
    role: z.string(),
    direct: z.boolean().describe("true for a local user's one direct role"),
    createdAt: z.number().describe("epoch milliseconds"),
  })
  .meta({ id: "RoleBinding" });
export type RoleBinding = z.infer<typeof RoleBinding>;

/** A custom role: a name and its permission names. */
export const CustomRole = z
  .object({ name: z.string(), permissions: z.array(z.string()), createdAt: z.number() })
  .meta({ id: "CustomRole" });
export type CustomRole = z.infer<typeof CustomRole>;

/** One audit row (spec §2.12). */
export const AuditRowView = z
  .object({
    id: z.string(),
    at: z.string().describe("ISO 8601"),
    subject: z.string().nullable(),
    subjectDisplay: z.string(),
    action: z.string().describe('"METHOD /path"'),
    outcome: z.enum(["allowed", "denied", "error"]),
    remoteAddr: z.string(),
  })
  .meta({ id: "AuditRow" });
export type AuditRowView = z.infer<typeof AuditRowView>;

/** Rows GET /api/v1/audit returns (spec §8.1). */
export const AUDIT_PAGE = 200;

export const listBindings = route({
  name: "listBindings",
  method: "GET",
  path: "/api/v1/rbac/bindings",
  tag: "rbac",
  summary: "Role bindings, and the configured group -> role map",
  access: "rbac:manage",
  spec: true,
  responses: {
    200: z.object({ bindings: z.array(RoleBinding), groupRoles: z.record(z.string(), z.string()) }),
    ...errors(403, 503),
  },
});

export const createBinding = route({
  name: "createBinding",
  method: "POST",
  path: "/api/v1/rbac/bindings",
  tag: "rbac",
  summary: "Binds a subject to a role",
  description: "409 for a duplicate; 422 for an unknown role or a malformed subject.",
  access: "rbac:manage",
  spec: true,
  body: z.strictObject({ subject: nameText(300), role: nameText(128) }),
  example: { subject: "group:netops", role: "operator" },
  responses: { 201: RoleBinding, ...errors(400, 403, 409, 422, 503) },
});

export const deleteBinding = route({
  name: "deleteBinding",
  method: "DELETE",
  path: "/api/v1/rbac/bindings/{id}",
  tag: "rbac",
  summary: "Deletes a binding",
  description: "409 when it would leave no administrator.",
  access: "rbac:manage",
  spec: true,
  params: z.object({ id: text(64) }),
  responses: { 204: null, ...errors(403, 404, 409, 503) },
});

export const listRoles = route({
  name: "listRoles",
  method: "GET",
  path: "/api/v1/rbac/roles",
  tag: "rbac",
  summary: "Built-in roles with their permissions, and the custom roles",
  access: "rbac:manage",
  spec: false,
  responses: {
    200: z.object({ builtin: z.record(z.string(), z.array(z.string())), custom: z.array(CustomRole) }),
    ...errors(403, 503),
  },
});

export const putRole = route({
  name: "putRole",
  method: "PUT",
  path: "/api/v1/rbac/roles/{name}",
  tag: "rbac",
  summary: "Creates or replaces a custom role",
  description:
    "422 for a built-in role's name or an unknown permission; 409 when dropping `users:manage` from the last administrator.",
  access: "rbac:manage",
  spec: false,
  params: z.object({ name: nameText(64) }),
  body: z.strictObject({ permissions: z.array(text(64)).max(64) }),
  example: { permissions: ["audit:read"] },
  responses: { 200: CustomRole, ...errors(400, 403, 409, 422, 503) },
});

export const deleteRole = route({
  name: "deleteRole",
  method: "DELETE",
  path: "/api/v1/rbac/roles/{name}",
  tag: "rbac",
  summary: "Deletes a custom role",
  access: "rbac:manage",
  spec: false,
  params: z.object({ name: nameText(64) }),
  responses: { 204: null, ...errors(403, 404, 409, 503) },
});

export const listAudit = route({
  name: "listAudit",
  method: "GET",
  path: "/api/v1/audit",
  tag: "audit",
  summary: "The newest 200 audit rows; no time or scope filter",
  access: "audit:read",
  spec: true,
  responses: { 200: z.object({ rows: z.array(AuditRowView) }), ...errors(403, 503) },
});
