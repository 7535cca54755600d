import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { hashTokenSecret } from "../auth/authenticate.ts";
import { type CookieClient, startConsole } from "../testing/harness.ts";
import { browser, createUser, type LocalEnvs, localEnvs, login, w } from "../testing/local-env.ts";

let envs: LocalEnvs;
before(async () => {
  envs = await localEnvs();
});
after(() => envs.close());
const env = (mode?: string, extra?: string) => envs.env(mode, extra);

test("users routes answer 404 outside local mode, whoever asks", async () => {
  const e = await env("anonymous", "");
  const s = await startConsole("auth:\n  anonymous:\n    role: admin\n");
  try {
    for (const server of [e.server, s]) {
      const c = browser(server);
      assert.equal((await c.request("GET", "/api/v1/users")).status, 404);
      assert.equal((await c.request("POST", "/api/v1/users", { body: {} })).status, 404);
      assert.equal((await c.request("POST", "/api/v1/auth/password", { body: {} })).status, 404);
    }
  } finally {
    await e.server.stop();
    await s.stop();
  }
});

test("create: 201, duplicate 409, short password and unknown role 422, bad body 400; list", async () => {
  const e = await env();
  try {
    const id = await createUser(e, "bob", "operator");
    const body = (over: object) => ({
      username: "carl",
      password: "long enough pw",
      role: "viewer",
      ...over,
    });
    assert.equal((await w(e.admin, "POST", "/api/v1/users", body({ username: "bob" }))).status, 409);
    assert.equal((await w(e.admin, "POST", "/api/v1/users", body({ password: "short" }))).status, 422);
    assert.equal((await w(e.admin, "POST", "/api/v1/users", body({ role: "root" }))).status, 422);
    assert.equal((await w(e.admin, "POST", "/api/v1/users", body({ username: "" }))).status, 422);
    assert.equal((await w(e.admin, "POST", "/api/v1/users", { username: "x" })).status, 400);
    assert.equal((await w(e.admin, "POST", "/api/v1/users", body({ extra: 1 }))).status, 400);
    const list = await e.admin.request("GET", "/api/v1/users");
    assert.deepEqual(
      (list.body as { users: { username: string; role: string; enabled: boolean; id: string }[] }).users.map(
        (u) => [u.username, u.role, u.enabled],
      ),
      [
        ["admin", "admin", true],
        ["bob", "operator", true],
      ],
    );
    assert.equal((await w(e.admin, "PUT", "/api/v1/users/not-a-uuid/role", { role: "viewer" })).status, 404);
    assert.equal(
      (await w(e.admin, "PUT", `/api/v1/users/${id.replace(/.$/, "0")}0/role`, { role: "viewer" })).status,
      404,
    );
  } finally {
    await e.server.stop();
  }
});

test("last-administrator guard: role change, disable and delete of the only admin are 409", async () => {
  const e = await env();
  try {
    const me = await e.admin.request("GET", "/api/v1/auth/me");
    const adminId = (me.body as { subject: string }).subject.slice("local:".length);
    assert.equal(
      (await w(e.admin, "PUT", `/api/v1/users/${adminId}/role`, { role: "operator" })).status,
      409,
    );
    assert.equal((await w(e.admin, "POST", `/api/v1/users/${adminId}/disable`)).status, 409);
    assert.equal((await w(e.admin, "DELETE", `/api/v1/users/${adminId}`)).status, 409);
    // a custom role holding users:manage counts as administrator
    await e.store.putCustomRole({ name: "user-admin", permissions: ["users:manage"] }, 1);
    const second = await createUser(e, "second", "user-admin");
    assert.equal((await w(e.admin, "PUT", `/api/v1/users/${adminId}/role`, { role: "viewer" })).status, 200);
    // now "second" is the last one
    assert.equal(
      (await w(e.admin, "POST", `/api/v1/users/${second}/disable`)).status,
      403,
      "admin lost users:manage",
    );
    const s = browser(e.server);
    assert.equal((await login(s, "second", "second-password-long")).status, 200);
    assert.equal((await w(s, "DELETE", `/api/v1/users/${second}`)).status, 409);
    assert.equal((await w(s, "PUT", `/api/v1/users/${adminId}/role`, { role: "admin" })).status, 200);
    assert.equal((await w(s, "DELETE", `/api/v1/users/${second}`)).status, 204);
  } finally {
    await e.server.stop();
  }
});

test("disable ends sessions and revokes tokens; re-enable revokes first and needs a new sign-in; 502 when tokens unwritable", async () => {
  const e = await env();
  try {
    const id = await createUser(e, "dana", "viewer");
    const d = browser(e.server);
    assert.equal((await login(d, "dana", "dana-password-long")).status, 200);
    const tok = (n: string) => ({
      id: n,
      name: n,
      owner: `local:${id}`,
      mintedBy: `local:${id}`,
      secretHash: hashTokenSecret(n),
      createdAt: e.clock.t,
      lastUsedAt: null,
      expiresAt: null,
      revokedAt: null,
    });
    await e.store.createToken(tok("dana-token"));
    assert.equal(
      (await d.request("GET", "/api/v1/auth/me", { headers: { authorization: "Bearer dana-token" } })).status,
      200,
    );

    // the token table refuses writes: nothing changes, 502 tokens unavailable
    await e.db.exec(
      "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'read-only'; END $$; CREATE TRIGGER no_writes BEFORE UPDATE ON api_tokens FOR EACH ROW EXECUTE FUNCTION refuse()",
    );
    const refused = await w(e.admin, "POST", `/api/v1/users/${id}/disable`);
    assert.equal(refused.status, 502);
    assert.match(JSON.stringify(refused.body), /tokens unavailable/);
    assert.equal((await d.request("GET", "/api/v1/auth/me")).status, 200, "still enabled, session intact");
    assert.equal((await w(e.admin, "DELETE", `/api/v1/users/${id}`)).status, 502);
    await e.db.exec("DROP TRIGGER no_writes ON api_tokens");

    assert.equal((await w(e.admin, "POST", `/api/v1/users/${id}/disable`)).status, 204);
    assert.equal((await d.request("GET", "/api/v1/auth/me")).status, 401);
    assert.equal(
      (await d.request("GET", "/api/v1/auth/me", { headers: { authorization: "Bearer dana-token" } })).status,
      401,
    );
    assert.equal((await login(d, "dana", "dana-password-long")).status, 401);

    // a token that is active again (restored from a backup, say) is revoked before re-enable; 502 keeps it disabled
    await e.db.query("UPDATE api_tokens SET revoked_at = NULL");
    await e.db.exec(
      "CREATE TRIGGER no_writes BEFORE UPDATE ON api_tokens FOR EACH ROW EXECUTE FUNCTION refuse()",
    );
    assert.equal((await w(e.admin, "POST", `/api/v1/users/${id}/enable`)).status, 502);
    assert.equal((await login(d, "dana", "dana-password-long")).status, 401);
    await e.db.exec("DROP TRIGGER no_writes ON api_tokens");
    assert.equal((await w(e.admin, "POST", `/api/v1/users/${id}/enable`)).status, 204);
    assert.equal(
      (await d.request("GET", "/api/v1/auth/me", { headers: { authorization: "Bearer dana-token" } })).status,
      401,
    );
    assert.equal((await login(d, "dana", "dana-password-long")).status, 200);
  } finally {
    await e.server.stop();
  }
});

test("delete removes account and bindings, ends sessions, frees the username", async () => {
  const e = await env();
  try {
    const id = await createUser(e, "erin", "operator");
    const c = browser(e.server);
    assert.equal((await login(c, "erin", "erin-password-long")).status, 200);
    assert.equal((await w(e.admin, "DELETE", `/api/v1/users/${id}`)).status, 204);
    assert.equal((await c.request("GET", "/api/v1/auth/me")).status, 401);
    assert.deepEqual(await e.store.listBindings(`local:${id}`), []);
    assert.equal((await w(e.admin, "DELETE", `/api/v1/users/${id}`)).status, 404);
    const again = await createUser(e, "erin", "viewer");
    assert.notEqual(again, id);
  } finally {
    await e.server.stop();
  }
});

test("password reset ends the user's sessions; own change needs the current password and keeps only this session", async () => {
  const e = await env("local", "rateLimit:\n  loginPerMinute: 6\n");
  try {
    const id = await createUser(e, "finn", "viewer");
    const one = browser(e.server);
    const two = browser(e.server);
    assert.equal((await login(one, "finn", "finn-password-long")).status, 200);
    assert.equal(
      (await w(e.admin, "PUT", `/api/v1/users/${id}/password`, { password: "short" })).status,
      422,
    );
    assert.equal(
      (await w(e.admin, "PUT", `/api/v1/users/${id}/password`, { password: "reset-password-1" })).status,
      204,
    );
    assert.equal((await one.request("GET", "/api/v1/auth/me")).status, 401);
    assert.equal((await login(one, "finn", "finn-password-long")).status, 401);
    assert.equal((await login(one, "finn", "reset-password-1")).status, 200);
    assert.equal((await login(two, "finn", "reset-password-1")).status, 200);

    const change = (c: CookieClient, currentPassword: string, newPassword: string) =>
      w(c, "POST", "/api/v1/auth/password", { currentPassword, newPassword });
    assert.equal((await change(one, "not my password", "new-password-12")).status, 401);
    assert.equal((await change(one, "reset-password-1", "short")).status, 422);
    assert.equal(
      (await one.request("POST", "/api/v1/auth/password", { body: {} })).status,
      403,
      "no CSRF header",
    );
    // a change spends the username's sign-in budget: 6 per minute, spent by 4 sign-ins and 2 changes so far
    assert.equal((await change(one, "reset-password-1", "new-password-12")).status, 429);
    e.clock.advance(60_000);
    assert.equal((await change(one, "reset-password-1", "new-password-12")).status, 204);
    assert.equal((await one.request("GET", "/api/v1/auth/me")).status, 200, "own session kept");
    assert.equal((await two.request("GET", "/api/v1/auth/me")).status, 401, "other session ended");
    const audit = await e.store.listAudit(200);
    assert.deepEqual(
      audit.filter((r) => r.action === "POST /api/v1/auth/password").map((r) => r.outcome),
      ["allowed", "denied", "denied", "denied"],
    );
  } finally {
    await e.server.stop();
  }
});
