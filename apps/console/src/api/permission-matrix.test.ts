import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type LocalEnvs, localEnvs, w } from "../testing/local-env.ts";
import { roleCallers } from "../testing/role-callers.ts";

let envs: LocalEnvs;
before(async () => {
  envs = await localEnvs();
});
after(() => envs.close());
const env = (mode?: string, extra?: string) => envs.env(mode, extra);

test("permission matrix: each route x each built-in role, a token and an anonymous caller", async () => {
  const e = await env();
  try {
    const callers = await roleCallers(e);
    const token = { authorization: "Bearer secret-1" };
    const routes: [string, string, unknown?][] = [
      ["GET", "/api/v1/config"],
      ["GET", "/api/v1/auth/me"],
      ["GET", "/api/v1/users"],
      ["POST", "/api/v1/users", { username: "matrix", password: "matrix-password-x", role: "viewer" }],
      ["GET", "/api/v1/rbac/bindings"],
      ["GET", "/api/v1/rbac/roles"],
      ["GET", "/api/v1/audit"],
      ["GET", "/api/v1/tokens"],
      ["POST", "/api/v1/tokens", { name: "matrix" }],
      ["POST", "/api/v1/tokens/00000000-0000-0000-0000-000000000000/revoke"],
      ["DELETE", "/api/v1/tokens/00000000-0000-0000-0000-000000000000"],
      ["POST", "/api/v1/auth/password", { currentPassword: "x", newPassword: "long-enough-new-password" }],
      ["GET", "/api/v1/auth/oidc/start"],
      ["GET", "/api/v1/auth/oidc/callback"],
      ["POST", "/api/v1/auth/logout"],
    ];
    const expected: Record<string, number[]> = {
      // unknown token ids: 404 past the permission check; own password change with a wrong current one: 401;
      // OIDC routes outside oidc mode: 404
      admin: [200, 200, 200, 201, 200, 200, 200, 200, 201, 404, 404, 401, 404, 404, 204],
      viewer: [200, 200, 403, 403, 403, 403, 403, 403, 403, 403, 403, 401, 404, 404, 204],
      operator: [200, 200, 403, 403, 403, 403, 403, 403, 403, 403, 403, 401, 404, 404, 204],
      "alert-editor": [200, 200, 403, 403, 403, 403, 403, 403, 403, 403, 403, 401, 404, 404, 204],
      // defaultRole is empty: a token holds no role; a token has no password to change
      token: [200, 200, 403, 403, 403, 403, 403, 403, 403, 403, 403, 403, 404, 404, 204],
      anonymous: [401, 401, 401, 401, 401, 401, 401, 401, 401, 401, 401, 401, 404, 404, 204],
    };
    for (const [who, codes] of Object.entries(expected)) {
      const c = callers[who];
      assert.ok(c);
      const got: number[] = [];
      for (const [method, path, body] of routes) {
        got.push((await w(c, method, path, body, who === "token" ? token : undefined)).status);
      }
      assert.deepEqual(got, codes, who);
    }
  } finally {
    await e.server.stop();
  }
});
