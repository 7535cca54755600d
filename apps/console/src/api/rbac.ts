/**
 * `/api/v1/rbac/bindings` (spec §4.3, `rbac:manage`) and custom roles under `/api/v1/rbac/roles` (path not named
 * by the spec; the console's choice), plus GET /api/v1/audit (`audit:read`, newest 200 rows).
 *   GET    /api/v1/rbac/bindings        -> { bindings: RoleBinding[], groupRoles: {group: role} (from config) }
 *   POST   /api/v1/rbac/bindings        { subject, role } -> 201 RoleBinding
 *   DELETE /api/v1/rbac/bindings/:id    -> 204
 *   GET    /api/v1/rbac/roles           -> { builtin: {role: permissions[]}, custom: CustomRole[] }
 *   PUT    /api/v1/rbac/roles/:name     { permissions } -> CustomRole
 *   DELETE /api/v1/rbac/roles/:name     -> 204
 *   GET    /api/v1/audit                -> { rows: AuditRow[] }  (503 without a database)
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import type { ConsoleConfig } from "../config/schema.ts";
import { InvalidInputError, UnavailableError } from "../errors.ts";
import type { RbacAdmin } from "../rbac/rbac-admin.ts";
import { BUILTIN_ROLE_PERMISSIONS } from "../rbac/roles.ts";
import type { Store } from "../store/store.ts";
import { type AccessResolver, requirePermission } from "./context.ts";

/** Rows GET /api/v1/audit returns (spec §8.1). */
export const AUDIT_PAGE = 200;

/** Dependencies of the RBAC and audit routes. */
export interface RbacRouteDeps {
  config: ConsoleConfig;
  rbac?: RbacAdmin;
  store?: Store;
  resolveAccess: AccessResolver;
}

const bindingBody = z.strictObject({ subject: z.string().max(300), role: z.string().max(128) });
const roleBody = z.strictObject({ permissions: z.array(z.string().max(64)).max(64) });

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const r = schema.safeParse(body);
  if (!r.success)
    throw new InvalidInputError(
      r.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; "),
    );
  return r.data;
}

function param(req: FastifyRequest, name: string): string {
  return String((req.params as Record<string, unknown>)[name] ?? "");
}

/** Registers the routes. */
export function addRbacRoutes(app: FastifyInstance, deps: RbacRouteDeps): void {
  const rbac = async (req: FastifyRequest): Promise<RbacAdmin> => {
    await requirePermission(req, deps.resolveAccess, "rbac:manage");
    if (!deps.rbac) throw new UnavailableError("role bindings need the database");
    return deps.rbac;
  };

  app.get("/api/v1/rbac/bindings", async (req) => ({
    bindings: await (await rbac(req)).listBindings(),
    groupRoles: deps.config.auth.groupRoles,
  }));
  app.post("/api/v1/rbac/bindings", async (req, reply) => {
    const r = await rbac(req);
    const b = parse(bindingBody, req.body);
    return reply.code(201).send(await r.addBinding(b.subject, b.role));
  });
  app.delete("/api/v1/rbac/bindings/:id", async (req, reply) => {
    await (await rbac(req)).deleteBinding(param(req, "id"));
    return reply.code(204).send();
  });
  app.get("/api/v1/rbac/roles", async (req) => ({
    builtin: BUILTIN_ROLE_PERMISSIONS,
    custom: await (await rbac(req)).listRoles(),
  }));
  app.put("/api/v1/rbac/roles/:name", async (req) => {
    const r = await rbac(req);
    return r.putRole(param(req, "name"), parse(roleBody, req.body).permissions);
  });
  app.delete("/api/v1/rbac/roles/:name", async (req, reply) => {
    await (await rbac(req)).deleteRole(param(req, "name"));
    return reply.code(204).send();
  });

  app.get("/api/v1/audit", async (req) => {
    await requirePermission(req, deps.resolveAccess, "audit:read");
    if (!deps.store) throw new UnavailableError("no database: no audit history");
    const rows = await deps.store.listAudit(AUDIT_PAGE);
    return {
      rows: rows.map((r) => ({
        id: r.id,
        at: new Date(r.at).toISOString(),
        subject: r.subject,
        subjectDisplay: r.subjectDisplay,
        action: r.action,
        outcome: r.outcome,
        remoteAddr: r.remoteAddr,
      })),
    };
  });
}
