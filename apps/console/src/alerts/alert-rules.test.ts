/**
 * Alert rules against the real prometheus binary (scraping itself, loading `<ruleDirectory>/*.yml`, reloaded
 * through POST /-/reload) and `promtool check rules`: create, update and delete rewrite the rule file, Prometheus
 * loads every rule labelled `svc_rule_id` and fires it; 422 for names collapsing to one alert name, for a name with
 * no letter or digit and for PromQL Prometheus refuses; preview evaluates a draft and stores nothing; a restarted
 * console rewrites the file from the database; GET /api/v1/alerts lists the console's alerts as Prometheus holds them; permissions per built-in role; 503 without a database or
 * prometheus.url. The alert poller of a console started while an alert fires (virtual time, real Prometheus): the
 * first poll is a baseline; a new alert is handed over as alert.fired with Prometheus's activeAt, its end as
 * alert.resolved. The store part runs on PGlite and PostgreSQL alike.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ALERT_RULE_EXAMPLE, type AlertRule, type AlertRuleInput, alertNameOf } from "@svc/contract";
import { freePort, type ManagedProcess, startPrometheus, stopProcess } from "@svc/lab";
import { parse } from "yaml";
import { eventually, needsBinary, skipUnless } from "../../../../test/helpers/env.ts";
import { UnprocessableError } from "../errors.ts";
import { migrate } from "../store/migrations.ts";
import { openPostgres } from "../store/postgres.ts";
import { postgresTestUrl } from "../store/testing.ts";
import { eachDb } from "../testing/each-db.ts";
import { startConsole } from "../testing/harness.ts";
import { browser, createUser, type LocalEnvs, localEnvs, login, w } from "../testing/local-env.ts";
import { VirtualScheduler, waitAdvancing } from "../testing/virtual-scheduler.ts";
import { type AlertTransition, prometheusAlertSource } from "./poller.ts";
import { RULE_FILE_NAME, renderRuleFile } from "./rule-file.ts";
import { ALERT_NAME_COLLISION, AlertRules } from "./rules.ts";

const PROM = "/usr/bin/prometheus";
const PROMTOOL = "/usr/bin/promtool";
const opts = skipUnless(needsBinary(PROM), needsBinary(PROMTOOL));
const dbs = await eachDb();
let proc: ManagedProcess | undefined;
let promUrl = "";
let dir = "";
let ruleDir = "";
let envs: LocalEnvs;

before(async () => {
  envs = await localEnvs();
  if (opts.skip) return;
  dir = mkdtempSync(join(tmpdir(), "svc-alert-rules-"));
  ruleDir = join(dir, "rules");
  const port = await freePort();
  const started = await startPrometheus({
    binary: PROM,
    dir,
    port,
    targets: [{ job: "self", targets: [`127.0.0.1:${port}`] }],
    intervalSeconds: 1,
    ruleDirectory: ruleDir,
  });
  proc = started.process;
  promUrl = started.url;
});
after(async () => {
  if (proc) await stopProcess(proc);
  if (dir) rmSync(dir, { recursive: true, force: true });
  await envs.close();
  await dbs.close();
});

const actor = {
  subject: "local:1",
  subjectDisplay: "tester",
  action: "POST /api/v1/alert-rules",
  remoteAddr: "",
};
const input = (name: string, over: Partial<AlertRuleInput> = {}): AlertRuleInput => ({
  ...ALERT_RULE_EXAMPLE,
  name,
  labels: { ...ALERT_RULE_EXAMPLE.labels },
  annotations: { ...ALERT_RULE_EXAMPLE.annotations },
  description: "",
  enabled: true,
  ...over,
});

test("alert names: lower case, runs of other characters one _, prefixed svc_", () => {
  assert.equal(alertNameOf("UDP loss"), "svc_udp_loss");
  assert.equal(alertNameOf("  udp--LOSS!! "), "svc_udp_loss");
  assert.equal(alertNameOf("Überlast 5%"), "svc_uberlast_5");
  assert.equal(alertNameOf("!!!"), "");
});

for (const backend of dbs.backends) {
  test(`store (${backend.kind}): audited writes, collisions, the rule file text`, async () => {
    const db = await backend.fresh();
    await migrate(db);
    const file = mkdtempSync(join(tmpdir(), "svc-alert-store-"));
    try {
      const rules = new AlertRules({
        db,
        now: () => Date.UTC(2026, 0, 1),
        prometheus: undefined,
        ruleDirectory: file,
        prometheusUrl: "",
      });
      const a = await rules.create(input("UDP loss"), actor);
      assert.equal(a.alertName, "svc_udp_loss");
      await assert.rejects(rules.create(input("udp-LOSS"), actor), (e: unknown) => {
        assert.ok(e instanceof UnprocessableError);
        assert.equal(e.message, ALERT_NAME_COLLISION);
        return true;
      });
      await assert.rejects(rules.create(input("?!"), actor), UnprocessableError);
      const b = await rules.create(input("tcp fail", { expr: "vector(1)" }), actor);
      await assert.rejects(rules.update(b.id, input("Udp Loss"), actor), { message: ALERT_NAME_COLLISION });
      const b2 = await rules.update(b.id, { ...input("tcp fail"), enabled: false }, actor);
      // text YAML must quote: quotes, colons, hashes, line breaks, templates, a leading dash
      const tricky = await rules.create(
        input("Tricky: 'quotes' # and \"more\"", {
          expr: 'sum by (job) (up{job=~".+"}) > 0 # comment',
          labels: { severity: "- critical: yes" },
          annotations: { summary: "line one\nline two: {{ $value }} \"q\" 'q' #x", description: "|-" },
        }),
        actor,
      );
      if (!opts.skip)
        execFileSync(PROMTOOL, ["check", "rules", join(file, RULE_FILE_NAME)], { stdio: "pipe" });
      const back = parse(readFileSync(join(file, RULE_FILE_NAME), "utf8")) as {
        groups: {
          rules: {
            alert: string;
            expr: string;
            labels: Record<string, string>;
            annotations: Record<string, string>;
          }[];
        }[];
      };
      const t = back.groups[0]?.rules.find((r) => r.labels.svc_rule_id === tricky.id);
      assert.deepEqual(
        [t?.alert, t?.expr, t?.labels.severity, t?.annotations.summary, t?.annotations.description],
        [tricky.alertName, tricky.expr, "- critical: yes", tricky.annotations.summary, "|-"],
        "the rule file reads back exactly",
      );
      await rules.delete(tricky.id, actor);
      assert.equal(b2.enabled, false);
      assert.deepEqual(
        (await rules.list()).map((r) => r.name),
        ["tcp fail", "UDP loss"],
      );
      const text = readFileSync(join(file, RULE_FILE_NAME), "utf8");
      assert.equal(text, renderRuleFile(await rules.list()));
      assert.match(text, /alert: svc_udp_loss/);
      assert.match(text, new RegExp(`svc_rule_id: ${a.id}`));
      assert.doesNotMatch(text, /svc_tcp_fail/, "a disabled rule is not in Prometheus");
      await rules.delete(a.id, actor);
      await assert.rejects(rules.delete(a.id, actor), { name: "NotFoundError" });
      assert.doesNotMatch(readFileSync(join(file, RULE_FILE_NAME), "utf8"), /svc_udp_loss/);
      const audit = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM audit");
      assert.equal(Number(audit[0]?.n), 6, "create, create, update, create, delete, delete");
      assert.equal(rules.sync().state, "synced");
    } finally {
      rmSync(file, { recursive: true, force: true });
      await db.close();
    }
  });
}

interface PromRule {
  name: string;
  labels: Record<string, string>;
  health: string;
}

async function loadedRules(): Promise<PromRule[]> {
  const r = (await (await fetch(`${promUrl}/api/v1/rules?type=alert`)).json()) as {
    data: { groups: { rules: PromRule[] }[] };
  };
  return r.data.groups.flatMap((g) => g.rules);
}

test("routes against Prometheus: rule file, reload, firing, preview, collisions, restart", opts, async () => {
  const extra = `prometheus:\n  url: ${promUrl}\nalerts:\n  ruleDirectory: ${ruleDir}\n`;
  const e = await envs.env("local", extra);
  try {
    const admin = e.admin;
    const created = await w(admin, "POST", "/api/v1/alert-rules", {
      ...ALERT_RULE_EXAMPLE,
      name: "Prometheus up",
      expr: 'up{job="self"} > 0',
      forSeconds: 0,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const rule = created.body as AlertRule;
    const file = join(ruleDir, RULE_FILE_NAME);
    execFileSync(PROMTOOL, ["check", "rules", file], { stdio: "pipe" });
    const loaded = await eventually(
      "Prometheus loads the rule",
      async () => (await loadedRules()).find((r) => r.name === "svc_prometheus_up"),
      20_000,
    );
    assert.equal(loaded.labels.svc_rule_id, rule.id);
    assert.equal(loaded.labels.severity, "warning");
    const firing = (id: string) =>
      eventually(
        `rule ${id} fires with svc_rule_id`,
        async () =>
          (await prometheusAlertSource(promUrl)()).find(
            (a) => a.labels.svc_rule_id === id && a.state === "firing",
          ),
        20_000,
      );
    const promAlert = await firing(rule.id);
    // the current alerts: Prometheus's, only the console's rules
    const current = await admin.request("GET", "/api/v1/alerts");
    assert.equal(current.status, 200, JSON.stringify(current.body));
    const mine = (current.body as { alerts: { ruleId: string; state: string; activeAt: string }[] }).alerts;
    assert.deepEqual(
      mine.map((a) => [a.ruleId, a.state, a.activeAt]),
      [[rule.id, "firing", new Date(promAlert.activeAt ?? "").toISOString()]],
    );

    // the poller of a console (re)started while the alert fires: the first poll is a baseline and hands over nothing
    const sched = new VirtualScheduler(Date.now());
    const seen: AlertTransition[] = [];
    const poller = await startConsole(`prometheus:\n  url: ${promUrl}\n`, {
      server: { alerts: { scheduler: sched, sink: { transitions: (b) => void seen.push(...b) } } },
    });
    try {
      await waitAdvancing(sched, () => poller.alertPoller?.hasBaseline() === true, "baseline poll", {
        stepMs: 30_000,
      });
      assert.equal(seen.length, 0, "the baseline delivers nothing");
      // a second rule fires: alert.fired with Prometheus's activeAt
      const second = await w(admin, "POST", "/api/v1/alert-rules", {
        ...ALERT_RULE_EXAMPLE,
        name: "second up",
        expr: 'up{job="self"} == 1',
        forSeconds: 0,
      });
      assert.equal(second.status, 201);
      const secondId = (second.body as AlertRule).id;
      const active = await firing(secondId);
      await waitAdvancing(sched, () => seen.length > 0, "alert.fired", { stepMs: 30_000, timeoutMs: 20_000 });
      assert.deepEqual(
        seen.map((t) => [t.event, t.ruleId, t.firedAt, t.labels.alertname]),
        [["alert.fired", secondId, new Date(active.activeAt ?? "").toISOString(), "svc_second_up"]],
      );
      // deleted: the alert is gone at a later poll, alert.resolved stamped at that poll
      assert.equal((await w(admin, "DELETE", `/api/v1/alert-rules/${secondId}`)).status, 204);
      await waitAdvancing(sched, () => seen.length > 1, "alert.resolved", {
        stepMs: 30_000,
        timeoutMs: 30_000,
      });
      const resolved = seen[1];
      assert.equal(resolved?.event, "alert.resolved");
      assert.equal(resolved?.ruleId, secondId);
      assert.equal(resolved?.firedAt, seen[0]?.firedAt);
      assert.ok(Date.parse(resolved?.at ?? "") > Date.parse(resolved?.firedAt ?? ""));
      assert.equal(seen.length, 2, "the first rule, firing throughout, was never handed over");
    } finally {
      await poller.stop();
    }

    const list = await admin.request("GET", "/api/v1/alert-rules");
    assert.equal(list.status, 200);
    assert.equal((list.body as { sync: { state: string } }).sync.state, "synced");

    // collisions, refused names and PromQL
    const collide = await w(admin, "POST", "/api/v1/alert-rules", {
      ...ALERT_RULE_EXAMPLE,
      name: "prometheus-UP",
    });
    assert.equal(collide.status, 422);
    assert.equal((collide.body as { error: { message: string } }).error.message, ALERT_NAME_COLLISION);
    const bad = await w(admin, "POST", "/api/v1/alert-rules", { ...ALERT_RULE_EXAMPLE, expr: "sum(" });
    assert.equal(bad.status, 422, JSON.stringify(bad.body));
    assert.equal(
      (await w(admin, "POST", "/api/v1/alert-rules", { ...ALERT_RULE_EXAMPLE, name: "--" })).status,
      422,
    );
    const reserved = { ...ALERT_RULE_EXAMPLE, name: "x", labels: { svc_rule_id: "mine" } };
    assert.equal((await w(admin, "POST", "/api/v1/alert-rules", reserved)).status, 400);
    assert.equal((await w(admin, "POST", "/api/v1/alert-rules", { name: "no expr" })).status, 400);

    // preview: evaluates now, stores nothing
    const before = (await e.db.query("SELECT id FROM alert_rules")).length;
    const preview = await w(admin, "POST", "/api/v1/alert-rules/preview", {
      ...ALERT_RULE_EXAMPLE,
      name: "draft",
      expr: 'up{job="self"}',
    });
    assert.equal(preview.status, 200, JSON.stringify(preview.body));
    const p = preview.body as {
      alertName: string;
      total: number;
      series: { labels: Record<string, string> }[];
    };
    assert.equal(p.alertName, "svc_draft");
    assert.equal(p.total, 1);
    assert.equal(p.series[0]?.labels.alertname, "svc_draft");
    assert.equal(p.series[0]?.labels.job, "self");
    assert.equal(p.series[0]?.labels.severity, "warning");
    assert.equal((await e.db.query("SELECT id FROM alert_rules")).length, before);
    const badPreview = await w(admin, "POST", "/api/v1/alert-rules/preview", {
      ...ALERT_RULE_EXAMPLE,
      expr: "rate(",
    });
    assert.equal(badPreview.status, 422);

    // permissions: viewer reads, alert-editor and operator manage
    for (const role of ["viewer", "alert-editor", "operator"]) {
      await createUser(e, `u-${role}`, role);
      const c = browser(e.server);
      assert.equal((await login(c, `u-${role}`, `u-${role}-password-long`)).status, 200);
      assert.equal((await c.request("GET", "/api/v1/alert-rules")).status, 200, role);
      assert.equal((await c.request("GET", `/api/v1/alert-rules/${rule.id}`)).status, 200, role);
      assert.equal((await c.request("GET", "/api/v1/alerts")).status, 200, role);
      const write = await w(c, "POST", "/api/v1/alert-rules", { ...ALERT_RULE_EXAMPLE, name: `by ${role}` });
      assert.equal(write.status, role === "viewer" ? 403 : 201, role);
      const pv = await w(c, "POST", "/api/v1/alert-rules/preview", ALERT_RULE_EXAMPLE);
      assert.equal(pv.status, role === "viewer" ? 403 : 200, role);
    }
    assert.equal((await browser(e.server).request("GET", "/api/v1/alert-rules")).status, 401);
    assert.equal((await admin.request("GET", "/api/v1/alert-rules/nope")).status, 404);

    // update and delete reach Prometheus
    const upd = await w(admin, "PUT", `/api/v1/alert-rules/${rule.id}`, {
      ...ALERT_RULE_EXAMPLE,
      name: "Prometheus up",
      expr: 'up{job="self"} > 0',
      labels: { severity: "critical" },
    });
    assert.equal(upd.status, 200, JSON.stringify(upd.body));
    await eventually(
      "the edit reaches Prometheus",
      async () =>
        (await loadedRules()).find((r) => r.name === "svc_prometheus_up" && r.labels.severity === "critical"),
      20_000,
    );
    assert.equal((await w(admin, "DELETE", `/api/v1/alert-rules/${rule.id}`)).status, 204);
    await eventually(
      "the deletion reaches Prometheus",
      async () => ((await loadedRules()).some((r) => r.name === "svc_prometheus_up") ? undefined : true),
      20_000,
    );
    execFileSync(PROMTOOL, ["check", "rules", file], { stdio: "pipe" });

    // a restarted console writes the file from the database (PostgreSQL: an in-memory PGlite does not outlive it)
    const [{ schema } = { schema: "" }] = await e.db.query<{ schema: string }>(
      "SELECT current_schema() AS schema",
    );
    await e.server.stop();
    if (e.db.kind === "postgres") {
      rmSync(file);
      const db = await openPostgres({ url: postgresTestUrl(), schema, max: 2 });
      const again = await startConsole(`database:\n  url: pglite:memory\n${extra}`, { db });
      try {
        await again.whenReady();
        await eventually(
          "the file is rewritten",
          async () => (existsSync(file) ? true : undefined),
          10_000,
          50,
        );
        assert.match(readFileSync(file, "utf8"), /svc_by_alert_editor/);
      } finally {
        await again.stop();
      }
    }
  } finally {
    await e.server.stop().catch(() => {});
  }
});

test("503 without a database; preview 503 without prometheus.url", async () => {
  const s = await startConsole("auth:\n  anonymous:\n    role: admin\n");
  try {
    const c = browser(s);
    assert.equal((await c.request("GET", "/api/v1/alert-rules")).status, 503);
    assert.equal((await c.request("GET", "/api/v1/alerts")).status, 503, "no prometheus.url");
  } finally {
    await s.stop();
  }
  const e = await envs.env("local");
  try {
    const pv = await w(e.admin, "POST", "/api/v1/alert-rules/preview", ALERT_RULE_EXAMPLE);
    assert.equal(pv.status, 503);
    // without a rule directory the rule is kept, and the list says it is not written anywhere
    assert.equal((await w(e.admin, "POST", "/api/v1/alert-rules", ALERT_RULE_EXAMPLE)).status, 201);
    const list = await e.admin.request("GET", "/api/v1/alert-rules");
    assert.equal((list.body as { sync: { state: string } }).sync.state, "unconfigured");
  } finally {
    await e.server.stop();
  }
});
