/**
 * GET /api/v1/export and POST /api/v1/import on real consoles and databases: a round trip into a fresh console
 * (dry run, apply, export again equal but for ids), sections left out and skipped per permission, the per-item
 * errors of spec §7 predicted by the dry run and reported by the apply, the last-administrator guard, webhook
 * secrets never exported, and bad bundles refused with 4xx changing nothing.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  ALERT_RULE_EXAMPLE,
  CONFIG_BUNDLE_FORMAT,
  CONFIG_BUNDLE_VERSION,
  type ConfigBundle,
  type ImportReport,
  MAINTENANCE_EXAMPLE,
  WEBHOOK_EXAMPLE,
} from "@svc/contract";
import { type FakeController, snapshotOf, startFakeController } from "../testing/fake-controller.ts";
import type { CookieClient } from "../testing/harness.ts";
import { type LocalEnv, type LocalEnvs, localEnvs, w } from "../testing/local-env.ts";
import { roleCallers } from "../testing/role-callers.ts";
import { snapshot } from "../testing/store-snapshot.ts";

let envs: LocalEnvs;
let controller: FakeController;
before(async () => {
  envs = await localEnvs();
  const snap = snapshotOf(["a", "b"]);
  // agents able to run external checks, so enabled definitions save
  controller = await startFakeController({
    ...snap,
    agents: snap.agents.map((a) => ({ ...a, capabilities: ["external-checks"] })),
  });
});
after(async () => {
  await envs.close();
  await controller.close();
});

const env = () => envs.env("local", `controller:\n  url: ${controller.url}\n`);
const head = { format: CONFIG_BUNDLE_FORMAT, version: CONFIG_BUNDLE_VERSION };

async function ok(c: CookieClient, method: string, path: string, body?: unknown): Promise<unknown> {
  const r = await w(c, method, path, body);
  assert.ok(r.status >= 200 && r.status < 300, `${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

async function exported(c: CookieClient): Promise<ConfigBundle> {
  const r = await c.request("GET", "/api/v1/export");
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as ConfigBundle;
}

async function importing(c: CookieClient, bundle: unknown, dryRun: boolean): Promise<ImportReport> {
  const r = await w(c, "POST", `/api/v1/import?dryRun=${dryRun}`, bundle);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as ImportReport;
}

/** Each present section's items as `outcome[:status]`. */
function plan(r: ImportReport): Record<string, string[]> {
  return Object.fromEntries(
    r.sections
      .filter((s) => s.state !== "absent")
      .map((s) => [s.section, s.items.map((i) => (i.status ? `${i.outcome}:${i.status}` : i.outcome))]),
  );
}

/** A bundle without what differs between consoles: ids, the export stamp, bindings (they name user ids). */
function comparable(b: ConfigBundle): unknown {
  const { exportedAt: _e, bindings: _b, ...rest } = b;
  return JSON.parse(JSON.stringify(rest, (k, v) => (k === "id" ? undefined : v)));
}

async function populate(e: LocalEnv): Promise<void> {
  const a = e.admin;
  const t = async (name: string, address: string) =>
    ((await ok(a, "POST", "/api/v1/targets", { name, address })) as { id: string }).id;
  const dns = await t("dns-server", "10.0.0.53:53");
  const web = await t("web", "https://example.com/health");
  const v6 = await t("v6", "[2001:db8::1]:443");
  await ok(a, "POST", "/api/v1/checks", {
    name: "lookup",
    targetId: dns,
    type: "dns",
    params: { query: "example.com" },
  });
  await ok(a, "POST", "/api/v1/checks", {
    name: "web https",
    targetId: web,
    type: "http",
    intervalSeconds: 60,
  });
  const tcp = (await ok(a, "POST", "/api/v1/checks", {
    name: "tcp 443",
    targetId: v6,
    type: "tcp",
    sources: { nodes: ["a"], zones: [] },
    enabled: false,
  })) as { id: string };
  await ok(a, "POST", "/api/v1/schedules", {
    name: "hourly trace",
    definitionId: tcp.id,
    kind: "mtr",
    intervalSeconds: 3600,
  });
  await ok(a, "POST", "/api/v1/alert-rules", ALERT_RULE_EXAMPLE);
  await ok(a, "POST", "/api/v1/maintenance-windows", MAINTENANCE_EXAMPLE);
  await ok(a, "POST", "/api/v1/webhooks", WEBHOOK_EXAMPLE);
  await ok(a, "PUT", "/api/v1/rbac/roles/auditors", { permissions: ["audit:read", "events:read"] });
}

test("round trip: export, dry run into a fresh console (stores nothing), apply, export again equal", async () => {
  let bundle: ConfigBundle;
  const first = await env();
  try {
    await populate(first);
    const r = await first.admin.request("GET", "/api/v1/export");
    assert.equal(r.status, 200);
    assert.doesNotMatch(JSON.stringify(r.body), new RegExp(WEBHOOK_EXAMPLE.secret), "no secret exported");
    assert.doesNotMatch(JSON.stringify(r.body), /secret/i);
    bundle = r.body as ConfigBundle;
    assert.deepEqual(bundle.omitted, []);
    assert.equal(bundle.targets?.length, 3);
    assert.deepEqual(
      bundle.targets?.map((x) => x.address),
      ["10.0.0.53:53", "[2001:db8::1]:443", "https://example.com/health"],
      "addresses as the target routes take them back",
    );
    assert.deepEqual(
      bundle.schedules?.map((s) => [s.name, s.check, s.target]),
      [["hourly trace", "tcp 443", "v6"]],
    );
  } finally {
    await first.server.stop();
  }

  const second = await env();
  try {
    // the endpoint exists here already (with its own secret): an import updates url, events, enabled only
    await ok(second.admin, "POST", "/api/v1/webhooks", {
      ...WEBHOOK_EXAMPLE,
      events: ["incident.created"],
      enabled: false,
      secret: "another-secret-of-production",
    });
    const before = await snapshot(second.db);
    const exportBefore = comparable(await exported(second.admin));
    const dry = await importing(second.admin, bundle, true);
    assert.equal(dry.dryRun, true);
    const expected = {
      targets: ["create", "create", "create"],
      checks: ["create", "create", "create"],
      schedules: ["create"],
      alertRules: ["create"],
      maintenanceWindows: ["create"],
      webhooks: ["update"],
      roles: ["create"],
      bindings: ["skipped"],
    };
    assert.deepEqual(plan(dry), expected);
    const afterDry = await snapshot(second.db);
    assert.deepEqual({ ...afterDry, audit: 0 }, { ...before, audit: 0 }, "a dry run stores nothing");
    assert.equal(afterDry.audit, before.audit + 1, "but its own audit row");
    assert.equal((await second.store.listAudit(1))[0]?.action, "POST /api/v1/import?dryRun=true");
    assert.deepEqual(comparable(await exported(second.admin)), exportBefore);

    const applied = await importing(second.admin, bundle, false);
    assert.equal(applied.dryRun, false);
    assert.deepEqual(plan(applied), expected, "the apply did what the dry run predicted");
    assert.deepEqual(comparable(await exported(second.admin)), comparable(bundle));

    // once more: nothing to do, and nothing written but the import's own row
    const n = (await snapshot(second.db)).audit;
    const again = await importing(second.admin, await exported(second.admin), false);
    for (const s of again.sections.filter((x) => x.section !== "bindings"))
      assert.ok(
        s.items.every((i) => i.outcome === "unchanged"),
        JSON.stringify(s),
      );
    assert.equal((await snapshot(second.db)).audit, n + 1);
  } finally {
    await second.server.stop();
  }
});

test("sections each caller cannot read are omitted; sections it cannot write are skipped with a warning", async () => {
  const e = await env();
  try {
    await populate(e);
    const callers = await roleCallers(e);
    const omitted = async (who: string) => (await exported(callers[who] as CookieClient)).omitted;
    assert.deepEqual(await omitted("admin"), []);
    assert.deepEqual(await omitted("viewer"), [
      "targets",
      "checks",
      "schedules",
      "webhooks",
      "roles",
      "bindings",
    ]);
    assert.deepEqual(await omitted("operator"), ["webhooks", "roles", "bindings"]);
    assert.deepEqual(await omitted("alert-editor"), [
      "targets",
      "checks",
      "schedules",
      "webhooks",
      "roles",
      "bindings",
    ]);
    const viewerBundle = await exported(callers.viewer as CookieClient);
    assert.equal(viewerBundle.targets, undefined);
    assert.equal(viewerBundle.alertRules?.length, 1);
    const token = await (callers.token as CookieClient).request("GET", "/api/v1/export", {
      headers: { authorization: "Bearer secret-1" },
    });
    assert.equal(token.status, 403, "a token holding no role");

    const bundle = {
      ...head,
      omitted: ["webhooks"],
      targets: [{ name: "new-target", address: "new.example:80" }],
      alertRules: [{ ...ALERT_RULE_EXAMPLE, name: "editor rule" }],
      roles: [{ name: "sneaky", permissions: ["users:manage"] }],
    };
    const editor = callers["alert-editor"] as CookieClient;
    const dry = await importing(editor, bundle, true);
    assert.deepEqual(plan(dry), { targets: ["skipped"], alertRules: ["create"], roles: ["skipped"] });
    const skipped = dry.sections.find((s) => s.section === "targets");
    assert.equal(skipped?.state, "skipped");
    // the permission the section's own write routes ask for (targets are written with targets:read, decisions.md)
    assert.equal(
      skipped?.warning,
      "not imported: writing targets needs targets:read, the permission the targets' own write routes ask for",
    );
    const roles = dry.sections.find((s) => s.section === "roles");
    assert.equal(
      roles?.warning,
      "not imported: writing roles needs rbac:manage, the permission the roles' own write routes ask for",
    );

    // a caller holding none of the write permissions may import nothing: 403 (dry run and apply), nothing written
    const viewer = callers.viewer as CookieClient;
    const before = await snapshot(e.db);
    for (const dryRun of [true, false]) {
      const r = await w(viewer, "POST", `/api/v1/import?dryRun=${dryRun}`, bundle);
      assert.equal(r.status, 403, `dryRun=${dryRun}: ${JSON.stringify(r.body)}`);
      assert.match(JSON.stringify(r.body), /holds none of the permissions an import writes with/);
    }
    assert.deepEqual(await snapshot(e.db), before, "nothing written but denied audit rows");
    assert.deepEqual(plan(await importing(editor, bundle, false)), plan(dry));
    const after = await exported(e.admin);
    assert.ok(!after.targets?.some((t) => t.name === "new-target"));
    assert.ok(after.alertRules?.some((r) => r.name === "editor rule"));
    assert.ok(!after.roles?.some((r) => r.name === "sneaky"));
    const operator = await importing(callers.operator as CookieClient, bundle, false);
    assert.deepEqual(plan(operator), { targets: ["create"], alertRules: ["unchanged"], roles: ["skipped"] });
  } finally {
    await e.server.stop();
  }
});

test("every per-item error of spec §7 is predicted by the dry run and reported by the apply", async () => {
  const e = await env();
  try {
    const a = e.admin;
    const host = (await ok(a, "POST", "/api/v1/targets", { name: "t2", address: "t2.example:443" })) as {
      id: string;
    };
    await ok(a, "POST", "/api/v1/checks", { name: "c2", targetId: host.id, type: "tcp" });
    const bundle = {
      ...head,
      targets: [
        { name: "h", address: "h.example:80" },
        { name: "long", address: `${"x".repeat(2049)}.example` },
        { name: "t2", address: "https://t2.example/" },
      ],
      checks: [
        { name: "web", target: "h", type: "http" },
        { name: "big", target: "h", type: "tcp", params: { pad: "x".repeat(5000) } },
        { name: "lookup", target: "h", type: "dns", params: { query: "a.example" } },
        { name: "nowhere", target: "missing", type: "tcp" },
        { name: "host plane", target: "h", type: "tcp", plane: "host" },
        { name: "pod plane", target: "h", type: "tcp", plane: "pod", enabled: false },
      ],
      schedules: [
        { name: "s1", check: "lookup", target: "h", kind: "check" },
        { name: "s2", check: "lookup", target: "h", kind: "mtr", plane: "node" },
      ],
      alertRules: [
        { ...ALERT_RULE_EXAMPLE, name: "UDP loss" },
        { ...ALERT_RULE_EXAMPLE, name: "udp-loss" },
      ],
      webhooks: [{ url: "http://127.0.0.1:9/unknown", events: ["alert.fired"], enabled: true }],
      bindings: [{ subject: "group:ops", role: "admin", direct: false }],
    };
    const expected = {
      targets: ["create", "error:400", "error:422"],
      checks: ["error:422", "error:400", "create", "error:422", "error:400", "create"],
      schedules: ["error:422", "error:400"],
      alertRules: ["create", "error:422"],
      webhooks: ["skipped"],
      bindings: ["skipped"],
    };
    const before = await snapshot(e.db);
    const dry = await importing(a, bundle, true);
    assert.deepEqual(plan(dry), expected);
    assert.deepEqual({ ...(await snapshot(e.db)), audit: 0 }, { ...before, audit: 0 });
    const applied = await importing(a, bundle, false);
    assert.deepEqual(plan(applied), expected);
    const msg = (r: ImportReport, s: string, i: number) =>
      r.sections.find((x) => x.section === s)?.items[i]?.message ?? "";
    assert.equal(msg(applied, "alertRules", 1), "alert name collision");
    assert.match(msg(applied, "targets", 2), /enabled check c2 could no longer run/);
    assert.match(msg(applied, "targets", 1), /2048 bytes/);
    assert.match(msg(applied, "checks", 1), /4096 bytes/);
    assert.match(msg(applied, "schedules", 0), /cannot run as a one-shot diagnostic/);
    assert.match(msg(applied, "checks", 4), /item\.plane: only pod is accepted/);
    assert.match(msg(applied, "schedules", 1), /item\.plane: only pod is accepted/);
    assert.match(msg(applied, "webhooks", 0), /only updates existing endpoints/);
    assert.deepEqual(plan(dry), plan(applied));

    // the same target update passes when the bundle rewrites the definition into one the URL can run
    const rewrite = {
      ...head,
      targets: [{ name: "t2", address: "https://t2.example/" }],
      checks: [{ name: "c2", target: "t2", type: "http" }],
    };
    assert.deepEqual(plan(await importing(a, rewrite, true)), { targets: ["update"], checks: ["update"] });
    assert.deepEqual(plan(await importing(a, rewrite, false)), { targets: ["update"], checks: ["update"] });
    const now = await exported(a);
    assert.deepEqual(
      now.checks?.filter((c) => c.name === "c2").map((c) => [c.type, c.enabled, c.target]),
      [["http", true, "t2"]],
    );
  } finally {
    await e.server.stop();
  }
});

test("the last-administrator guard: a role change leaving no administrator is predicted and refused (409)", async () => {
  const e = await env();
  try {
    const a = e.admin;
    await ok(a, "PUT", "/api/v1/rbac/roles/keepers", { permissions: ["rbac:manage", "users:manage"] });
    const users = (await ok(a, "GET", "/api/v1/users")) as { users: { id: string; username: string }[] };
    const admin = users.users.find((u) => u.username === "admin");
    assert.ok(admin);
    await ok(a, "PUT", `/api/v1/users/${admin.id}/role`, { role: "keepers" });
    const bundle = { ...head, roles: [{ name: "keepers", permissions: ["rbac:manage"] }] };
    for (const dryRun of [true, false]) {
      const r = await importing(a, bundle, dryRun);
      assert.deepEqual(plan(r), { roles: ["error:409"] });
      assert.match(
        r.sections.find((s) => s.section === "roles")?.items[0]?.message ?? "",
        /last administrator/,
      );
    }
    const roles = (await ok(a, "GET", "/api/v1/rbac/roles")) as {
      custom: { name: string; permissions: string[] }[];
    };
    assert.deepEqual(roles.custom.find((r) => r.name === "keepers")?.permissions, [
      "rbac:manage",
      "users:manage",
    ]);
  } finally {
    await e.server.stop();
  }
});

test("bad bundles: another version or format, prototype keys, unstorable text, too deep, too large: 4xx, nothing changes", async () => {
  const e = await env();
  try {
    await populate(e);
    const before = await snapshot(e.db);
    const exportBefore = await exported(e.admin);
    let deep: unknown = "x";
    for (let i = 0; i < 40; i++) deep = { d: deep };
    const cases: [string, unknown, number, RegExp][] = [
      ["version", { ...head, version: 2 }, 400, /version must be 1/],
      ["format", { ...head, format: "other" }, 400, /format/],
      ["unknown section", { ...head, users: [] }, 400, /users/],
      [
        "__proto__",
        JSON.parse(
          `{"format":"${CONFIG_BUNDLE_FORMAT}","version":1,"targets":[{"__proto__":{"x":1},"name":"p","address":"p.example"}]}`,
        ),
        400,
        /./,
      ],
      [
        "constructor",
        { ...head, alertRules: [{ ...ALERT_RULE_EXAMPLE, labels: { constructor: "x" } }] },
        400,
        /constructor/,
      ],
      ["NUL", { ...head, targets: [{ name: "n", address: "a\u0000.example" }] }, 400, /NUL/],
      [
        "lone surrogate",
        { ...head, roles: [{ name: "r\uD800", permissions: [] }] },
        400,
        /NUL or a lone surrogate/,
      ],
      ["deep", { ...head, checks: [{ name: "d", target: "t", type: "tcp", params: deep }] }, 400, /deeper/],
      ["items", { ...head, targets: Array.from({ length: 10_001 }, () => 1) }, 400, /targets/],
      // past the server's 1 MiB default: the route's own 8 MiB limit lets the bundle reach its schema
      ["2 MiB", { ...head, exportedAt: "x".repeat(2 * 1024 * 1024) }, 400, /exportedAt/],
      ["size", { ...head, exportedAt: "x".repeat(9 * 1024 * 1024) }, 413, /./],
    ];
    for (const [what, body, status, message] of cases) {
      for (const dryRun of [true, false]) {
        const r = await w(e.admin, "POST", `/api/v1/import?dryRun=${dryRun}`, body);
        assert.equal(r.status, status, `${what}: ${JSON.stringify(r.body).slice(0, 300)}`);
        assert.match((r.body as { error: { message: string } }).error.message, message, what);
      }
    }
    assert.deepEqual(await snapshot(e.db), before);
    assert.deepEqual(comparable(await exported(e.admin)), comparable(exportBefore));
  } finally {
    await e.server.stop();
  }
});

test("a failure that is not an item's ends the import with nothing written: 502s, an audit row that cannot be written", async () => {
  const e = await env();
  try {
    const a = e.admin;
    const bundle = {
      ...head,
      targets: [{ name: "fresh", address: "fresh.example:443" }],
      checks: [{ name: "probe", target: "fresh", type: "tcp" }],
      alertRules: [{ ...ALERT_RULE_EXAMPLE, name: "fresh rule" }],
    };
    const before = await snapshot(e.db);
    const exportBefore = comparable(await exported(a));
    const unchanged = async (what: string) => {
      assert.deepEqual(await snapshot(e.db), before, what);
      assert.deepEqual(comparable(await exported(a)), exportBefore, what);
    };

    // the existing definitions cannot be read
    await e.db.exec("ALTER TABLE check_definitions RENAME TO check_definitions_away");
    for (const dryRun of [true, false]) {
      const r = await w(a, "POST", `/api/v1/import?dryRun=${dryRun}`, bundle);
      assert.equal(r.status, 502, JSON.stringify(r.body));
      assert.match(
        (r.body as { error: { message: string } }).error.message,
        /cannot read the existing targets and check definitions/,
      );
    }
    await e.db.exec("ALTER TABLE check_definitions_away RENAME TO check_definitions");
    await unchanged("nothing written after the 502 of the read");

    // audit rows that cannot be written: neither an apply nor a dry run happens
    await e.db.exec(`
      CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'audit is read-only'; END $$;
      CREATE TRIGGER refuse_audit BEFORE INSERT ON audit FOR EACH ROW EXECUTE FUNCTION refuse_audit();`);
    const noChecks = { ...bundle, checks: [] };
    for (const dryRun of [true, false]) {
      const r = await w(a, "POST", `/api/v1/import?dryRun=${dryRun}`, noChecks);
      assert.ok(r.status >= 500, `dryRun=${dryRun}: ${r.status}`);
    }
    await e.db.exec("DROP TRIGGER refuse_audit ON audit; DROP FUNCTION refuse_audit();");
    await unchanged("nothing written without its audit rows");
  } finally {
    await e.server.stop();
  }
});

test("the controller cannot be asked about an enabled definition: 502, and nothing before it is written", async () => {
  const gone = await envs.env("local", "controller:\n  url: http://127.0.0.1:9\n");
  try {
    const bundle = {
      ...head,
      targets: [{ name: "fresh", address: "fresh.example:443" }],
      checks: [{ name: "probe", target: "fresh", type: "tcp" }],
      alertRules: [{ ...ALERT_RULE_EXAMPLE, name: "fresh rule" }],
    };
    for (const dryRun of [true, false]) {
      const r = await w(gone.admin, "POST", `/api/v1/import?dryRun=${dryRun}`, bundle);
      assert.equal(r.status, 502, JSON.stringify(r.body));
    }
    const after = await exported(gone.admin);
    assert.deepEqual([after.targets, after.checks, after.alertRules], [[], [], []]);
  } finally {
    await gone.server.stop();
  }
});
