/**
 * `/api/v1/users...` (spec §4.3, §5.5): local user management, `users:manage`, 404 unless `auth.mode` is local.
 * The spec leaves sub-paths and bodies open; these are the console's:
 *   GET    /api/v1/users                      -> { users: UserView[] }
 *   POST   /api/v1/users                      { username, password, role } -> 201 UserView
 *   PUT    /api/v1/users/:id/role             { role } -> UserView
 *   POST   /api/v1/users/:id/disable | enable -> 204
 *   DELETE /api/v1/users/:id                  -> 204
 *   PUT    /api/v1/users/:id/password         { password } -> 204 (reset; all the user's sessions end)
 *   POST   /api/v1/auth/password              { currentPassword, newPassword } -> 204 (own change, session only;
 *                                             spends the sign-in budget; other sessions end)
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import type { LocalSignIn } from "../auth/local-signin.ts";
import type { ConsoleConfig } from "../config/schema.ts";
import { ForbiddenError, InvalidInputError, NotFoundError } from "../errors.ts";
import type { NewAuditRow } from "../store/store.ts";
import type { UserAdmin } from "../users/user-admin.ts";
import { type AccessResolver, requireCaller, requirePermission } from "./context.ts";

/** Path of the own password change. */
export const PASSWORD_PATH = "/api/v1/auth/password";

/** Dependencies of the users routes. */
export interface UserRouteDeps {
  config: ConsoleConfig;
  users?: UserAdmin;
  signIn?: LocalSignIn;
  resolveAccess: AccessResolver;
  audit: (row: Omit<NewAuditRow, "at">) => Promise<void>;
}

const createBody = z.strictObject({
  username: z.string().max(256),
  password: z.string().max(1024),
  role: z.string().max(128),
});
const roleBody = z.strictObject({ role: z.string().max(128) });
const passwordBody = z.strictObject({ password: z.string().max(1024) });
const changeBody = z.strictObject({
  currentPassword: z.string().max(1024),
  newPassword: z.string().max(1024),
});

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const r = schema.safeParse(body);
  if (!r.success)
    throw new InvalidInputError(
      r.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; "),
    );
  return r.data;
}

function idParam(req: FastifyRequest): string {
  const id = (req.params as { id?: unknown }).id;
  if (typeof id !== "string" || !/^[0-9a-f-]{36}$/.test(id)) throw new NotFoundError("no such user");
  return id;
}

/** Registers the users routes and the own password change. */
export function addUserRoutes(app: FastifyInstance, deps: UserRouteDeps): void {
  const admin = async (req: FastifyRequest): Promise<UserAdmin> => {
    if (deps.config.auth.mode !== "local" || !deps.users) throw new NotFoundError();
    await requirePermission(req, deps.resolveAccess, "users:manage");
    return deps.users;
  };

  app.get("/api/v1/users", async (req) => ({ users: await (await admin(req)).list() }));

  app.post("/api/v1/users", async (req, reply) => {
    const users = await admin(req);
    const b = parse(createBody, req.body);
    return reply.code(201).send(await users.create(b.username, b.password, b.role));
  });

  app.put("/api/v1/users/:id/role", async (req) => {
    const users = await admin(req);
    return users.setRole(idParam(req), parse(roleBody, req.body).role);
  });

  app.post("/api/v1/users/:id/disable", async (req, reply) => {
    await (await admin(req)).disable(idParam(req));
    return reply.code(204).send();
  });

  app.post("/api/v1/users/:id/enable", async (req, reply) => {
    await (await admin(req)).enable(idParam(req));
    return reply.code(204).send();
  });

  app.delete("/api/v1/users/:id", async (req, reply) => {
    await (await admin(req)).delete(idParam(req));
    return reply.code(204).send();
  });

  app.put("/api/v1/users/:id/password", async (req, reply) => {
    const users = await admin(req);
    await users.resetPassword(idParam(req), parse(passwordBody, req.body).password);
    return reply.code(204).send();
  });

  app.post(PASSWORD_PATH, async (req, reply) => {
    if (deps.config.auth.mode !== "local" || !deps.users || !deps.signIn) throw new NotFoundError();
    const p = requireCaller(req);
    if (p.kind !== "session" || !p.subject.startsWith("local:") || !p.sessionIdHash) {
      throw new ForbiddenError("only a signed-in local user can change their own password");
    }
    const b = parse(changeBody, req.body);
    const row = {
      subject: p.subject,
      subjectDisplay: p.display,
      action: `POST ${PASSWORD_PATH}`,
      remoteAddr: req.clientAddr,
    };
    try {
      await deps.signIn.spendAttempt(p.display, req.clientAddr);
      await deps.users.changeOwnPassword(
        p.subject.slice("local:".length),
        b.currentPassword,
        b.newPassword,
        p.sessionIdHash,
      );
    } catch (e) {
      await deps.audit({ ...row, outcome: "denied" });
      throw e;
    }
    await deps.audit({ ...row, outcome: "allowed" });
    return reply.code(204).send();
  });
}
