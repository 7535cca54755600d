import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createUser, type LocalEnvs, localEnvs } from "../testing/local-env.ts";

let envs: LocalEnvs;
before(async () => {
  envs = await localEnvs();
});
after(() => envs.close());
const env = (mode?: string, extra?: string) => envs.env(mode, extra);

test("fuzzed bodies on every write route never produce a 5xx or a partial write", async () => {
  const e = await env();
  try {
    const id = await createUser(e, "gina", "viewer");
    let seed = 42;
    const rnd = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const values: unknown[] = [
      "group:g",
      ["audit:read"],
      ["users:manage", "x"],
      null,
      0,
      -1,
      1e308,
      true,
      "",
      "x".repeat(5000),
      "\u0000",
      [],
      {},
      ["a"],
      { a: 1 },
      "admin",
      "viewer",
      "2999-01-01T00:00:00Z",
      "2000-01-01T00:00:00Z",
    ];
    const pick = () => values[Math.floor(rnd() * values.length)];
    const keys = [
      "username",
      "password",
      "role",
      "currentPassword",
      "newPassword",
      "subject",
      "permissions",
      "name",
      "expiresAt",
      "extra",
      "__proto__",
    ];
    const body = (): unknown => {
      if (rnd() < 0.15) return pick();
      const o: Record<string, unknown> = {};
      for (const k of keys) if (rnd() < 0.5) o[k] = pick();
      return o;
    };
    const routes: [string, string][] = [
      ["POST", "/api/v1/users"],
      ["PUT", `/api/v1/users/${id}/role`],
      ["PUT", `/api/v1/users/${id}/password`],
      ["POST", "/api/v1/auth/password"],
      ["POST", "/api/v1/auth/login"],
      ["POST", "/api/v1/rbac/bindings"],
      ["PUT", "/api/v1/rbac/roles/fuzzed"],
      ["POST", "/api/v1/tokens"],
      ["POST", "/api/v1/tokens/00000000-0000-0000-0000-000000000000/revoke"],
    ];
    let minted = 0;
    for (let i = 0; i < 60; i++) {
      for (const [method, path] of routes) {
        const b = body();
        const headers: Record<string, string> = {
          "content-type": "application/json",
          "x-csrf-token": e.admin.jar.get("__Host-svc_csrf") ?? "",
        };
        headers.cookie = [...e.admin.jar].map(([k, v]) => `${k}=${v}`).join("; ");
        const raw = rnd() < 0.1 ? "{not json" : JSON.stringify(b);
        const res = await fetch(`${e.server.httpUrl}${path}`, { method, headers, body: raw });
        await res.arrayBuffer();
        if (path === "/api/v1/tokens" && res.status === 201) minted++;
        assert.ok(res.status < 500, `${method} ${path} ${raw.slice(0, 80)} -> ${res.status}`);
        if (path === "/api/v1/auth/login") e.clock.advance(60_000);
      }
    }
    // every accepted write was a whole user; nothing half-written
    const users = await e.store.listUsers();
    const bindings = await e.store.listBindings();
    for (const u of users)
      assert.ok(
        bindings.some((b) => b.subject === `local:${u.id}` && b.direct),
        u.username,
      );
    const tokens = await e.store.listTokens();
    assert.equal(tokens.length, minted, "one token per 201, none from a refused mint");
    assert.ok(tokens.every((t) => t.name.trim() !== "" && t.secretHash.length === 43));
  } finally {
    await e.server.stop();
  }
});
