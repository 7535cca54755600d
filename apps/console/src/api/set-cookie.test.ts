import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { ADMIN_PW, type LocalEnvs, localEnvs } from "../testing/local-env.ts";

let envs: LocalEnvs;
before(async () => {
  envs = await localEnvs();
});
after(() => envs.close());

function namesOf(lines: readonly string[]): string[] {
  return lines.map((l) => l.slice(0, l.indexOf("=")));
}

test("a sign-in presenting a stale session cookie answers one Set-Cookie per cookie name", async () => {
  const e = await envs.env();
  try {
    const c = e.admin;
    const stale = new Map(c.jar);
    assert.equal((await c.request("POST", "/api/v1/auth/logout", { csrf: true })).status, 204);
    for (const [k, v] of stale) c.jar.set(k, v);
    // the stale cookie is cleared by authentication, then the sign-in sets both cookies again
    const r = await c.request("POST", "/api/v1/auth/login", {
      body: { username: "admin", password: ADMIN_PW },
    });
    assert.equal(r.status, 200);
    const names = namesOf(c.lastSetCookie);
    assert.deepEqual([...names].sort(), ["__Host-svc_csrf", "__Host-svc_session"]);
    assert.ok(
      c.lastSetCookie.every((l) => !/Max-Age=0\b/.test(l)),
      "the last word for each cookie is the new value",
    );
    assert.equal((await c.request("GET", "/api/v1/auth/me")).status, 200);

    // a stale cookie on a request that signs nobody in: each cookie cleared once
    for (const [k, v] of stale) c.jar.set(k, v);
    await c.request("GET", "/api/v1/auth/me");
    const cleared = namesOf(c.lastSetCookie);
    assert.equal(new Set(cleared).size, cleared.length, cleared.join(", "));
  } finally {
    await e.server.stop();
  }
});
