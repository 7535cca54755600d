/**
 * Caller-chosen names that are also Object.prototype's keys (`constructor`, `__proto__`, `toString`) name nothing:
 * a header-mode caller in such a group holds no role and is refused fleet reads; a node called `constructor` is
 * not in a sparse plan that does not list it.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { fleetView, isPlanned } from "../fleet/fleet-view.ts";
import type { ConsoleServer } from "../server.ts";
import { type FakeController, snapshotOf, startFakeController } from "../testing/fake-controller.ts";
import { startConsole } from "../testing/harness.ts";

const PROTO_KEYS = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"];
const READS = ["/topology", "/matrix", "/overview", "/nodes/a", "/pairs/a/b"];

let controller: FakeController;
let server: ConsoleServer;
before(async () => {
  controller = await startFakeController(snapshotOf(["a", "b"]));
  server = await startConsole(
    `auth:\n  mode: header\n  defaultRole: ""\n  header:\n    trustedProxyCIDRs: [127.0.0.1/32]\n` +
      `  groupRoles:\n    ops: viewer\ncontroller:\n  url: ${controller.url}\n`,
  );
});
after(async () => {
  await server?.stop();
  await controller?.close();
});

async function get(path: string, groups: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${server.httpUrl}${path}`, {
    headers: { "x-remote-user": "mallory", "x-remote-groups": groups },
  });
  return { status: res.status, body: await res.json() };
}

test("header-mode groups named like Object.prototype keys hold no role: fleet reads answer 403", async () => {
  for (const g of [...PROTO_KEYS, PROTO_KEYS.join(",")]) {
    const me = await get("/api/v1/auth/me", g);
    assert.equal(me.status, 200);
    assert.deepEqual((me.body as { roles: string[] }).roles, [], g);
    for (const r of READS) assert.equal((await get(`/api/v1/fleet${r}`, g)).status, 403, `${g} ${r}`);
  }
  // the control: a mapped group reads (whatever the read then answers, it is not a refusal)
  for (const r of READS) assert.notEqual((await get(`/api/v1/fleet${r}`, "ops")).status, 403, r);
});

test("a node named like an Object.prototype key is planned only when the plan lists it", () => {
  const snap = { ...snapshotOf(["a", ...PROTO_KEYS]), probePlan: { a: ["toString"] } };
  const view = fleetView(snap);
  for (const k of PROTO_KEYS) {
    assert.equal(isPlanned(view, k, "a"), false, k);
    assert.equal(isPlanned(view, "a", k), k === "toString", k);
  }
});
