/**
 * Handlers of the local user routes (contract: @svc/contract users.ts; `users:manage`, 404 for everyone unless
 * `auth.mode` is local) and of the own password change (POST /api/v1/auth/password: session only; spends the
 * sign-in budget; the user's other sessions end).
 */
import * as c from "@svc/contract";
import type { LocalSignIn } from "../auth/local-signin.ts";
import type { ConsoleConfig } from "../config/schema.ts";
import { ForbiddenError, NotFoundError } from "../errors.ts";
import type { AuditActor } from "../store/audit-row.ts";
import type { NewAuditRow } from "../store/store.ts";
import type { UserAdmin } from "../users/user-admin.ts";
import type { AddRoute } from "./register.ts";

/** Dependencies of the users routes. */
export interface UserRouteDeps {
  config: ConsoleConfig;
  users?: UserAdmin;
  signIn?: LocalSignIn;
  audit: (row: Omit<NewAuditRow, "at">) => Promise<void>;
}

/** Registers the users routes and the own password change. */
export function addUserRoutes(add: AddRoute, deps: UserRouteDeps): void {
  const local = { available: () => deps.config.auth.mode === "local" && deps.users !== undefined };
  const users = (): UserAdmin => {
    if (!deps.users) throw new NotFoundError();
    return deps.users;
  };

  add(c.listUsers, async () => ({ users: await users().list() }), local);
  add(
    c.createUser,
    async ({ body: b, actor }) => users().create(b.username, b.password, b.role, actor),
    local,
  );
  add(c.setUserRole, async ({ params, body, actor }) => users().setRole(params.id, body.role, actor), local);
  // disable, enable and delete: a user id in, nothing out
  for (const [spec, act] of [
    [c.disableUser, (u: UserAdmin, id: string, a: AuditActor) => u.disable(id, a)],
    [c.enableUser, (u: UserAdmin, id: string, a: AuditActor) => u.enable(id, a)],
    [c.deleteUser, (u: UserAdmin, id: string, a: AuditActor) => u.delete(id, a)],
  ] as const) {
    add(
      spec,
      async ({ params, actor }) => {
        await act(users(), params.id, actor);
      },
      local,
    );
  }
  add(
    c.resetUserPassword,
    async ({ params, body, actor }) => {
      await users().resetPassword(params.id, body.password, actor);
    },
    local,
  );

  add(
    c.changePassword,
    async ({ req, principal: p, body: b, actor }) => {
      if (!deps.signIn) throw new NotFoundError();
      if (p.kind !== "session" || !p.subject.startsWith("local:") || !p.sessionIdHash) {
        throw new ForbiddenError("only a signed-in local user can change their own password");
      }
      const row = {
        subject: p.subject,
        subjectDisplay: p.display,
        action: `POST ${c.PASSWORD_PATH}`,
        remoteAddr: req.clientAddr,
      };
      try {
        await deps.signIn.spendAttempt(p.display, req.clientAddr);
        await users().changeOwnPassword(
          p.subject.slice("local:".length),
          b.currentPassword,
          b.newPassword,
          p.sessionIdHash,
          actor,
        );
      } catch (e) {
        // the refusal's row is best effort: the refusal stands either way
        await deps.audit({ ...row, outcome: "denied" }).catch(() => undefined);
        throw e;
      }
    },
    {
      available: () =>
        deps.config.auth.mode === "local" && deps.users !== undefined && deps.signIn !== undefined,
    },
  );
}
