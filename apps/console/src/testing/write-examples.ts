/**
 * Test helper: a valid example request for every write route (non-GET) of the contract, by operation name, for
 * the audit-coverage and fuzz suites. A maker may prepare state through the store (which writes no audit row).
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import {
  ALERT_RULE_EXAMPLE,
  INCIDENT_EXAMPLE,
  MAINTENANCE_EXAMPLE,
  PIN_EXAMPLE,
  type RouteSpec,
  routes,
  WEBHOOK_EXAMPLE,
} from "@svc/contract";
import { hashPassword } from "../auth/password.ts";
import type { CookieClient } from "./harness.ts";
import { ADMIN_PW, browser, type LocalEnv, login } from "./local-env.ts";

/** One example call: who calls, with which path parameters and body. */
export interface Example {
  client?: CookieClient;
  params?: Record<string, string>;
  body?: unknown;
}

/** Makes a valid example of a route; may prepare state through the store (which writes no audit row). */
export type ExampleMaker = (e: LocalEnv) => Promise<Example>;

export async function storedUser(e: LocalEnv, username: string, password = `${username}-password-long`) {
  const u = await e.store.createUser(
    { username, passwordHash: await hashPassword(password), role: "viewer" },
    1,
  );
  return { id: u.id, password };
}

async function storedToken(e: LocalEnv, revoked: boolean): Promise<string> {
  const id = randomUUID();
  await e.store.createToken({
    id,
    name: `t-${id.slice(0, 8)}`,
    owner: "local:someone",
    mintedBy: "local:someone",
    secretHash: randomUUID(),
    createdAt: e.clock.t,
    lastUsedAt: null,
    expiresAt: null,
    revokedAt: revoked ? e.clock.t : null,
  });
  return id;
}

/** An annotation stored directly (no audit row), for the update and delete examples. */
async function storedAnnotation(e: LocalEnv): Promise<string> {
  const id = randomUUID();
  await e.db.query(
    `INSERT INTO annotations (id, at, end_at, text, scope, author, author_subject, created_at, updated_at)
     VALUES ($1, $2, NULL, 'note', '', 'someone', 'local:someone', $2, $2)`,
    [id, e.clock.t],
  );
  return id;
}

/** A target stored directly (no audit row), for the target and check examples. */
export async function storedTarget(e: LocalEnv, name = `t-${randomUUID().slice(0, 8)}`): Promise<string> {
  const id = randomUUID();
  await e.db.query(
    `INSERT INTO targets (id, name, kind, address, port, created_at, updated_at)
     VALUES ($1, $2, 'host', 'example.com', 443, $3, $3)`,
    [id, name, e.clock.t],
  );
  return id;
}

/** A disabled tcp check definition stored directly (no audit row). */
async function storedCheck(e: LocalEnv): Promise<string> {
  const id = randomUUID();
  await e.db.query(
    `INSERT INTO check_definitions (id, name, target_id, type, params, sources, interval_ms, timeout_ms, enabled,
       created_at, updated_at)
     VALUES ($1, 'stored', $2, 'tcp', '{}', '{"nodes":[],"zones":[]}', 30000, 5000, false, $3, $3)`,
    [id, await storedTarget(e), e.clock.t],
  );
  return id;
}

/** A disabled schedule of a stored definition (no audit row). */
async function storedSchedule(e: LocalEnv): Promise<string> {
  const id = randomUUID();
  await e.db.query(
    `INSERT INTO schedules (id, name, definition_id, kind, interval_ms, enabled, created_at, updated_at)
     VALUES ($1, 'nightly', $2, 'check', 300000, false, $3, $3)`,
    [id, await storedCheck(e), e.clock.t],
  );
  return id;
}

/** An alert rule stored directly (no audit row), for the update and delete examples. */
async function storedAlertRule(e: LocalEnv): Promise<string> {
  const id = randomUUID();
  await e.db.query(
    `INSERT INTO alert_rules (id, name, alert_name, expr, for_seconds, labels, annotations, description, enabled,
       created_at, updated_at)
     VALUES ($1, $2, $3, 'vector(1)', 0, '{}', '{}', '', true, $4, $4)`,
    [id, `stored ${id}`, `svc_stored_${id.replaceAll("-", "_")}`, e.clock.t],
  );
  return id;
}

/** A webhook endpoint stored directly (no audit row; its secret cannot be opened), for update and delete. */
async function storedWebhook(e: LocalEnv): Promise<string> {
  const id = randomUUID();
  await e.db.query(
    `INSERT INTO webhook_endpoints (id, url, events, enabled, secret_sealed, created_at, updated_at)
     VALUES ($1, 'http://127.0.0.1:9/hook', '["alert.fired"]', true, 'v1:AAAA', $2, $2)`,
    [id, e.clock.t],
  );
  return id;
}

/** A fleet-wide maintenance window stored directly (no audit row). */
async function storedWindow(e: LocalEnv): Promise<string> {
  const id = randomUUID();
  await e.db.query(
    `INSERT INTO maintenance_windows (id, scope, node, source, destination, target, start_at, end_at, reason, author,
       created_at, updated_at)
     VALUES ($1, 'fleet', '', '', '', '', $2, $3, '', 'someone', $2, $2)`,
    [id, e.clock.t, e.clock.t + 3_600_000],
  );
  return id;
}

/** An incident stored directly (no audit row), `resolved` or open, with one pinned finding `pin-1`. */
async function storedIncident(e: LocalEnv, status: "open" | "resolved" = "open"): Promise<string> {
  const id = randomUUID();
  const pins = [{ ...PIN_EXAMPLE, id: "pin-1", pinnedAt: "2026-01-01T00:00:00.000Z", pinnedBy: "someone" }];
  await e.db.query(
    `INSERT INTO incidents (id, status, kind, scope, window_from, window_to, title, notes, opened_by,
       opened_by_display, opened_at, resolved_at, updated_at, pins)
     VALUES ($1, $2, 'global', '', $3, $4, 'stored', '', 'local:someone', 'someone', $3, NULL, $3, $5::jsonb)`,
    [id, status, e.clock.t, e.clock.t + 3_600_000, JSON.stringify(pins)],
  );
  await e.db.query("INSERT INTO incident_transitions (incident_id, at, status) VALUES ($1, $2, $3)", [
    id,
    e.clock.t,
    status,
  ]);
  return id;
}

async function signedIn(e: LocalEnv, username: string, password: string): Promise<CookieClient> {
  const c = browser(e.server);
  assert.equal((await login(c, username, password)).status, 200);
  return c;
}

/** A valid example per write route, by operation name. */
export const EXAMPLES: Readonly<Record<string, ExampleMaker>> = {
  logout: async (e) => ({ client: await signedIn(e, "admin", ADMIN_PW) }),
  login: async (e) => ({ client: browser(e.server), body: { username: "admin", password: ADMIN_PW } }),
  changePassword: async (e) => {
    const u = await storedUser(e, "pat");
    const client = await signedIn(e, "pat", u.password);
    return { client, body: { currentPassword: u.password, newPassword: "another-long-password" } };
  },
  createBinding: async () => ({ body: { subject: "group:ops", role: "viewer" } }),
  deleteBinding: async (e) => {
    const b = await e.store.userAdmin((tx) => tx.addBinding("group:gone", "viewer", 1));
    return { params: { id: b.id } };
  },
  putRole: async () => ({ params: { name: "auditors" }, body: { permissions: ["audit:read"] } }),
  deleteRole: async (e) => {
    await e.store.putCustomRole({ name: "doomed", permissions: [] }, 1);
    return { params: { name: "doomed" } };
  },
  createUser: async () => ({
    body: { username: "newbie", password: "newbie-password-long", role: "viewer" },
  }),
  setUserRole: async (e) => ({ params: { id: (await storedUser(e, "sam")).id }, body: { role: "operator" } }),
  disableUser: async (e) => ({ params: { id: (await storedUser(e, "dee")).id } }),
  enableUser: async (e) => {
    const { id } = await storedUser(e, "eve");
    await e.store.userAdmin((tx) => tx.setEnabled(id, false, 1));
    return { params: { id } };
  },
  deleteUser: async (e) => ({ params: { id: (await storedUser(e, "del")).id } }),
  resetUserPassword: async (e) => ({
    params: { id: (await storedUser(e, "ray")).id },
    body: { password: "a-brand-new-password" },
  }),
  mintToken: async () => ({ body: { name: "ci" } }),
  revokeToken: async (e) => ({ params: { id: await storedToken(e, false) } }),
  deleteToken: async (e) => ({ params: { id: await storedToken(e, true) } }),
  runFleetCheck: async () => ({ body: { source: "a", destination: "b" } }),
  createAnnotation: async () => ({
    body: { at: "2026-01-01T00:00:00Z", endAt: "2026-01-01T01:00:00Z", text: "maintenance", scope: "a->b" },
  }),
  updateAnnotation: async (e) => ({
    params: { id: await storedAnnotation(e) },
    body: { at: "2026-01-01T00:00:00Z", text: "edited note", scope: "" },
  }),
  deleteAnnotation: async (e) => ({ params: { id: await storedAnnotation(e) } }),
  createTarget: async () => ({ body: { name: "web", address: "https://example.com/health" } }),
  updateTarget: async (e) => ({
    params: { id: await storedTarget(e) },
    body: { name: "api", address: "api.example.com:443" },
  }),
  deleteTarget: async (e) => ({ params: { id: await storedTarget(e) } }),
  // disabled: the fake controller's agents advertise no external-checks (`enabled: false` always saves)
  createCheck: async (e) => ({
    body: { name: "tcp 443", targetId: await storedTarget(e), type: "tcp", enabled: false },
  }),
  updateCheck: async (e) => ({
    params: { id: await storedCheck(e) },
    body: { name: "edited", targetId: await storedTarget(e), type: "icmp", enabled: false },
  }),
  deleteCheck: async (e) => ({ params: { id: await storedCheck(e) } }),
  createSchedule: async (e) => ({
    body: { name: "hourly", definitionId: await storedCheck(e), enabled: false },
  }),
  updateSchedule: async (e) => ({
    params: { id: await storedSchedule(e) },
    body: {
      name: "trace",
      definitionId: await storedCheck(e),
      kind: "mtr",
      intervalSeconds: 600,
      enabled: false,
    },
  }),
  deleteSchedule: async (e) => ({ params: { id: await storedSchedule(e) } }),
  createRun: async () => ({ body: { type: "tcp", pairs: [{ source: "a", destination: "b" }] } }),
  createAlertRule: async () => ({ body: { ...ALERT_RULE_EXAMPLE, name: `rule ${randomUUID()}` } }),
  updateAlertRule: async (e) => ({
    params: { id: await storedAlertRule(e) },
    body: { ...ALERT_RULE_EXAMPLE, name: `rule ${randomUUID()}`, enabled: false },
  }),
  deleteAlertRule: async (e) => ({ params: { id: await storedAlertRule(e) } }),
  createWebhook: async () => ({ body: WEBHOOK_EXAMPLE }),
  updateWebhook: async (e) => ({
    params: { id: await storedWebhook(e) },
    body: { url: "http://127.0.0.1:9/other", events: ["incident.created"], enabled: false },
  }),
  deleteWebhook: async (e) => ({ params: { id: await storedWebhook(e) } }),
  // a real endpoint (sealed through the API): port 9 is refused by fetch, so the test is an outcome, not traffic
  testWebhook: async (e) => {
    const r = await e.admin.request("POST", "/api/v1/webhooks", {
      body: { ...WEBHOOK_EXAMPLE, url: "http://127.0.0.1:9/hook" },
      csrf: true,
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return { params: { id: (r.body as { id: string }).id } };
  },
  createMaintenanceWindow: async () => ({ body: MAINTENANCE_EXAMPLE }),
  updateMaintenanceWindow: async (e) => ({
    params: { id: await storedWindow(e) },
    body: { ...MAINTENANCE_EXAMPLE, scope: "pair", node: "", source: "a", destination: "b" },
  }),
  deleteMaintenanceWindow: async (e) => ({ params: { id: await storedWindow(e) } }),
  createIncident: async () => ({ body: INCIDENT_EXAMPLE }),
  resolveIncident: async (e) => ({ params: { id: await storedIncident(e) } }),
  reopenIncident: async (e) => ({ params: { id: await storedIncident(e, "resolved") } }),
  updateIncidentNotes: async (e) => ({
    params: { id: await storedIncident(e) },
    body: { notes: "line\n\ttab" },
  }),
  pinFinding: async (e) => ({ params: { id: await storedIncident(e) }, body: PIN_EXAMPLE }),
  unpinFinding: async (e) => ({ params: { id: await storedIncident(e), pinId: "pin-1" } }),
  deleteIncident: async (e) => ({ params: { id: await storedIncident(e) } }),
  projectCheck: async (e) => ({ body: { name: "draft", targetId: await storedTarget(e), type: "tcp" } }),
  importConfig: async () => ({
    body: {
      format: "svc-config-bundle",
      version: 1,
      targets: [{ name: `imported-${randomUUID().slice(0, 8)}`, address: "imported.example:443" }],
    },
  }),
};

/** The contract's write routes (a `safe` POST changes nothing and is not one). */
export const writeRoutes: readonly RouteSpec[] = routes.filter((r) => r.method !== "GET" && r.safe !== true);
