/**
 * Test helper for permission tests: a signed-in client per built-in role (local users `u-<role>`), the admin, an
 * anonymous caller, and a token caller (a client without cookies; requests add TOKEN_HEADER for the token minted
 * here, which holds the default role).
 */
import assert from "node:assert/strict";
import { hashTokenSecret } from "../auth/authenticate.ts";
import type { CookieClient } from "./harness.ts";
import { browser, createUser, type LocalEnv, login } from "./local-env.ts";

/** The Authorization header of the token roleCallers mints. */
export const TOKEN_HEADER = { authorization: "Bearer secret-1" } as const;

/** Clients keyed admin, viewer, operator, alert-editor, token and anonymous. */
export async function roleCallers(e: LocalEnv): Promise<Record<string, CookieClient>> {
  const callers: Record<string, CookieClient> = {
    admin: e.admin,
    anonymous: browser(e.server),
    token: browser(e.server),
  };
  for (const role of ["viewer", "operator", "alert-editor"]) {
    await createUser(e, `u-${role}`, role);
    const c = browser(e.server);
    assert.equal((await login(c, `u-${role}`, `u-${role}-password-long`)).status, 200);
    callers[role] = c;
  }
  await e.store.createToken({
    id: "tok",
    name: "ci",
    owner: "local:x",
    mintedBy: "local:x",
    secretHash: hashTokenSecret("secret-1"),
    createdAt: e.clock.t,
    lastUsedAt: null,
    expiresAt: null,
    revokedAt: null,
  });
  return callers;
}
