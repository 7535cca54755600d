/**
 * Who may read and manage targets and check definitions: each route x each built-in role, a token (defaultRole
 * empty) and an anonymous caller (local mode). Operator and admin read and manage; viewer and alert-editor hold
 * neither `targets:read` nor `checks:read` (spec §5.3).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type LocalEnvs, localEnvs, w } from "../testing/local-env.ts";
import { roleCallers } from "../testing/role-callers.ts";
import { storedTarget } from "../testing/write-examples.ts";
import { type LiveController, startLiveController } from "./testdata/live-controller.ts";

let envs: LocalEnvs;
let ctl: LiveController;
before(async () => {
  envs = await localEnvs();
  ctl = await startLiveController([
    { node: "node-1", zone: "z1", capabilities: ["external-checks", "plane:tcp"] },
  ]);
});
after(async () => {
  await envs.close();
  await ctl.close();
});

test("targets and checks: each built-in role, a token and an anonymous caller", async () => {
  const e = await envs.env("local", `controller:\n  url: ${ctl.url}\n`);
  try {
    const callers = await roleCallers(e);
    const ok = {
      admin: true,
      operator: true,
      viewer: false,
      "alert-editor": false,
      token: false,
      anonymous: false,
    };
    for (const [who, allowed] of Object.entries(ok)) {
      const c = callers[who];
      assert.ok(c);
      const headers = who === "token" ? { authorization: "Bearer secret-1" } : undefined;
      const target = await storedTarget(e);
      const call = (method: string, path: string, body?: unknown) =>
        w(c, method, path, body, headers).then((r) => r.status);
      const created = await w(
        c,
        "POST",
        "/api/v1/targets",
        { name: `t-${who}`, address: "example.com:443" },
        headers,
      );
      const checkBody = { name: "c", targetId: target, type: "tcp" };
      const made = await w(c, "POST", "/api/v1/checks", checkBody, headers);
      const checkId = (made.body as { id?: string }).id ?? "none";
      const got = [
        await call("GET", "/api/v1/targets"),
        await call("GET", `/api/v1/targets/${target}`),
        created.status,
        await call("PUT", `/api/v1/targets/${target}`, { name: `u-${who}`, address: "example.org" }),
        await call("GET", "/api/v1/checks"),
        made.status,
        await call("POST", "/api/v1/checks/projection", checkBody),
        await call("PUT", `/api/v1/checks/${checkId}`, { ...checkBody, enabled: false }),
        await call("DELETE", `/api/v1/checks/${checkId}`),
        await call("DELETE", `/api/v1/targets/${target}`),
      ];
      const denied = who === "anonymous" ? 401 : 403;
      const want = allowed ? [200, 200, 201, 200, 200, 201, 200, 200, 204, 204] : Array(10).fill(denied);
      assert.deepEqual(got, want, who);
    }
  } finally {
    await e.server.stop();
  }
});
