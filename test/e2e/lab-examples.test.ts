// The OpenAPI document as a runnable tutorial (issue 21): every POST and PUT route of the contract carries an
// `example` body (a route without a body is exempt), and run in the order of `routes` against a fresh lab started
// exactly as `svc lab` starts it (3 agents in network namespaces, Prometheus, the console), as the lab's admin, every
// example answers 2xx. Ids an example cannot know are written `idFrom("createX")` in its body (the id createX's
// example answered); path parameters come from the table below.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { idFromName, LAB_ADMIN_PASSWORD, pathOf, type RouteSpec, routes } from "@svc/contract";
import { isRoot, Lab } from "@svc/lab";
import { svcLabOptions } from "../../apps/cli/src/lab-command.ts";
import { CookieClient } from "../../apps/console/src/testing/harness.ts";
import { needsBinary, needsRoot, skipUnless } from "../helpers/env.ts";

/** A path parameter: the id a create route's example answered, or a literal value. */
type ParamSource = { from: string } | { value: string };

/** Path parameters of the walked routes, by route and parameter name. */
const PATH_PARAMS: Readonly<Record<string, Readonly<Record<string, ParamSource>>>> = {
  putRole: { name: { value: "auditors" } },
  setUserRole: { id: { from: "createUser" } },
  disableUser: { id: { from: "createUser" } },
  enableUser: { id: { from: "createUser" } },
  resetUserPassword: { id: { from: "createUser" } },
  revokeToken: { id: { from: "mintToken" } },
  updateAnnotation: { id: { from: "createAnnotation" } },
  resolveIncident: { id: { from: "createIncident" } },
  reopenIncident: { id: { from: "createIncident" } },
  updateIncidentNotes: { id: { from: "createIncident" } },
  pinFinding: { id: { from: "createIncident" } },
  updateTarget: { id: { from: "createTarget" } },
  updateCheck: { id: { from: "createCheck" } },
  updateSchedule: { id: { from: "createSchedule" } },
  updateAlertRule: { id: { from: "createAlertRule" } },
  updateMaintenanceWindow: { id: { from: "createMaintenanceWindow" } },
  updateWebhook: { id: { from: "createWebhook" } },
  testWebhook: { id: { from: "createWebhook" } },
};

/**
 * The walk: `routes` in order, except that signing in comes first (it is how the tutorial starts) and changing the
 * password and signing out come last (they end what the rest needs). Nothing is skipped: the OIDC routes are GETs.
 */
function walk(): RouteSpec[] {
  const writes = routes.filter((r) => r.method === "POST" || r.method === "PUT");
  const first = ["login"];
  const last = ["changePassword", "logout"];
  const named = (names: string[]) =>
    names.map((n) => {
      const r = writes.find((w) => w.name === n);
      assert.ok(r, `route ${n}`);
      return r;
    });
  return [
    ...named(first),
    ...writes.filter((r) => !first.includes(r.name) && !last.includes(r.name)),
    ...named(last),
  ];
}

/** `value` with every `idFrom` placeholder replaced by the id its route answered and the admin password filled. */
function fill(route: string, value: unknown, ids: ReadonlyMap<string, string>, password: string): unknown {
  if (value === LAB_ADMIN_PASSWORD) return password;
  const from = idFromName(value);
  if (from !== undefined) {
    const id = ids.get(from);
    assert.ok(id, `${route}: its example needs the id from ${from}, which has not run before it`);
    return id;
  }
  if (Array.isArray(value)) return value.map((v) => fill(route, v, ids, password));
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(route, v, ids, password)]));
  return value;
}

test("every POST and PUT route with a body carries an example", () => {
  const missing = routes
    .filter((r) => (r.method === "POST" || r.method === "PUT") && r.body && r.example === undefined)
    .map((r) => r.name);
  assert.deepEqual(missing, []);
});

describe(
  "the contract's examples against a fresh svc lab",
  skipUnless(needsRoot(), needsBinary("/usr/bin/prometheus")),
  () => {
    let lab: Lab;

    before(async () => {
      lab = new Lab({
        ...svcLabOptions({ agents: 3, netns: isRoot(), prometheus: true, console: true }),
        removeDirOnStop: true,
      });
      await lab.start();
    });
    after(async () => {
      await lab?.stop();
    });

    test("every POST and PUT example, in order, answers 2xx", async (t) => {
      assert.ok(lab.consoleUrl && lab.consoleAdmin, "the lab started its console");
      assert.deepEqual(
        lab.nodes.map((n) => n.name),
        ["node-1", "node-2", "node-3"],
      );
      const password = lab.consoleAdmin.password;
      const client = new CookieClient(lab.consoleUrl, "__Host-svc_csrf");
      const ids = new Map<string, string>();
      const failures: string[] = [];
      const order = walk();
      for (const r of order) {
        try {
          if (r.body) assert.ok(r.example !== undefined, `${r.name}: has no example`);
          const table = PATH_PARAMS[r.name] ?? {};
          const params: Record<string, string> = {};
          for (const name of Object.keys(r.params?.shape ?? {})) {
            const source = table[name];
            assert.ok(source, `${r.name}: path parameter ${name} is not in PATH_PARAMS`);
            if ("value" in source) {
              params[name] = source.value;
              continue;
            }
            const id = ids.get(source.from);
            assert.ok(id, `${r.name}: needs the id from ${source.from}, which has not run before it`);
            params[name] = id;
          }
          const body = r.example === undefined ? undefined : fill(r.name, r.example, ids, password);
          const res = await client.request(r.method, pathOf(r, params), { body, csrf: true });
          if (res.status < 200 || res.status > 299) {
            failures.push(`${r.method} ${r.path} (${r.name}): ${res.status} ${JSON.stringify(res.body)}`);
            continue;
          }
          const id = (res.body as { id?: unknown } | undefined)?.id;
          if (typeof id === "string") ids.set(r.name, id);
        } catch (err) {
          // a missing example, parameter or earlier id (the message names the route): reported with the rest
          failures.push((err as Error).message);
        }
      }
      assert.deepEqual(failures, []);
      t.diagnostic(`${order.length} POST and PUT examples answered 2xx`);
    });
  },
);
