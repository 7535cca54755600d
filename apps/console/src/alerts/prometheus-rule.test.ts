/**
 * Alert rules as a PrometheusRule object (kubernetesContext.enabled, issue 22 item 1) against the fake Kubernetes API
 * server (test helper): create writes `svc-console-alerts` in the console's namespace with the ruleSelector labels,
 * the rule file's one group and every rule labelled svc_rule_id; update and delete replace it with its
 * resourceVersion; an object another client changed is read fresh and replaced; an unreachable API reports the sync
 * failed and the next write recovers; with a rule directory too both places hold the same rules. The console's
 * namespace comes from SVC_POD_NAMESPACE, POD_NAMESPACE, the service account file, else `default`.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ALERT_RULE_EXAMPLE, RULE_ID_LABEL } from "@svc/contract";
import { kubeConfigForServer } from "@svc/controller";
import { parse } from "yaml";
import { FakeKubeApi } from "../../../../test/helpers/fake-kube-api/index.ts";
import { parseConsoleConfig } from "../config/load.ts";
import { migrate } from "../store/migrations.ts";
import { eachDb } from "../testing/each-db.ts";
import { consoleNamespace, PROMETHEUS_RULE_NAME } from "./prometheus-rule.ts";
import { RULE_FILE_NAME } from "./rule-file.ts";
import { AlertRules, alertRulesFromConfig } from "./rules.ts";

const NS = "monitoring-test";
const actor = { subject: "local:1", subjectDisplay: "tester", action: "test", remoteAddr: "127.0.0.1" };
const dbs = await eachDb();
let api: FakeKubeApi;
let url = "";
let dir = "";

before(async () => {
  api = new FakeKubeApi();
  url = await api.start();
  dir = mkdtempSync(join(tmpdir(), "svc-prometheus-rule-"));
});
after(async () => {
  await api.stop();
  await dbs.close();
  rmSync(dir, { recursive: true, force: true });
});

interface RuleSpec {
  groups: {
    name: string;
    rules: { alert: string; expr: string; for?: string; labels: Record<string, string> }[];
  }[];
}

function stored(): { labels: Record<string, string>; spec: RuleSpec; rv: string } | undefined {
  const o = api.prometheusRule(NS, PROMETHEUS_RULE_NAME);
  if (!o) return undefined;
  return {
    labels: o.metadata.labels ?? {},
    spec: o.spec as unknown as RuleSpec,
    rv: o.metadata.resourceVersion ?? "",
  };
}

for (const backend of dbs.backends) {
  test(`${backend.kind}: create, update, delete keep the PrometheusRule (and the rule file) in step`, async () => {
    const db = await backend.fresh();
    await migrate(db);
    const ruleDir = join(dir, backend.kind);
    const rules = new AlertRules({
      db,
      now: () => Date.UTC(2026, 0, 1),
      prometheus: undefined,
      ruleDirectory: ruleDir,
      prometheusUrl: "",
      prometheusRule: { kubeConfig: kubeConfigForServer(url), namespace: NS, labels: { release: "prom" } },
    });
    try {
      const a = await rules.create({ ...ALERT_RULE_EXAMPLE, description: "", enabled: true }, actor);
      let got = stored();
      assert.ok(got, "the object was created");
      assert.equal(got.labels.release, "prom");
      assert.equal(got.labels["app.kubernetes.io/managed-by"], "svc-console");
      assert.equal(got.spec.groups.length, 1);
      const [rule] = got.spec.groups[0]?.rules ?? [];
      assert.equal(rule?.alert, "svc_udp_loss");
      assert.equal(rule?.expr, ALERT_RULE_EXAMPLE.expr);
      assert.equal(rule?.for, "60s");
      assert.equal(rule?.labels[RULE_ID_LABEL], a.id);
      assert.deepEqual(rules.sync(), { state: "synced", at: "2026-01-01T00:00:00.000Z", error: null });
      // both places hold the same group
      const file = parse(readFileSync(join(ruleDir, RULE_FILE_NAME), "utf8")) as RuleSpec;
      assert.deepEqual(file.groups, got.spec.groups);

      const rv = got.rv;
      await rules.update(
        a.id,
        { ...ALERT_RULE_EXAMPLE, forSeconds: 0, description: "", enabled: true },
        actor,
      );
      got = stored();
      assert.notEqual(got?.rv, rv, "replaced");
      assert.equal(got?.spec.groups[0]?.rules[0]?.for, undefined);

      // another client changed the object: it is read fresh and replaced, not refused
      const other = api.prometheusRule(NS, PROMETHEUS_RULE_NAME);
      assert.ok(other);
      api.putPrometheusRule({ ...other, spec: { groups: [] } });
      const b = await rules.create(
        { ...ALERT_RULE_EXAMPLE, name: "TCP loss", description: "", enabled: true },
        actor,
      );
      got = stored();
      assert.deepEqual(
        got?.spec.groups[0]?.rules.map((r) => r.labels[RULE_ID_LABEL]),
        [b.id, a.id],
        "by alert name",
      );

      await rules.delete(a.id, actor);
      await rules.delete(b.id, actor);
      assert.deepEqual(stored()?.spec.groups[0]?.rules, []);
      assert.equal(rules.sync().state, "synced");
    } finally {
      await db.close();
    }
  });
}

test("an unreachable Kubernetes API: the sync is failed and named; the next write recovers", async () => {
  const backend = dbs.backends[0];
  assert.ok(backend);
  const db = await backend.fresh();
  await migrate(db);
  const rules = new AlertRules({
    db,
    now: () => Date.UTC(2026, 0, 2),
    prometheus: undefined,
    ruleDirectory: "",
    prometheusUrl: "",
    prometheusRule: { kubeConfig: kubeConfigForServer(url), namespace: NS, labels: {} },
  });
  try {
    api.setUnavailable(true);
    const r = await rules.create(
      { ...ALERT_RULE_EXAMPLE, name: "Unreachable", description: "", enabled: true },
      actor,
    );
    const st = rules.sync();
    assert.equal(st.state, "failed");
    assert.match(
      st.error ?? "",
      /PrometheusRule monitoring-test\/svc-console-alerts: kubernetes API answered 503/,
    );
    api.setUnavailable(false);
    await rules.file.sync();
    assert.equal(rules.sync().state, "synced");
    assert.ok(stored()?.spec.groups[0]?.rules.some((x) => x.labels[RULE_ID_LABEL] === r.id));
    await rules.delete(r.id, actor);
  } finally {
    api.setUnavailable(false);
    await db.close();
  }
});

test("from the configuration: kubernetesContext.enabled writes the object in the console's namespace", async () => {
  const backend = dbs.backends[0];
  assert.ok(backend);
  const db = await backend.fresh();
  await migrate(db);
  const { config } = parseConsoleConfig(
    "console:\n  kubernetesContext:\n    enabled: true\n  alerts:\n    prometheusRuleLabels:\n      release: kube-prometheus\n",
    {},
  );
  const saved = process.env.SVC_POD_NAMESPACE;
  process.env.SVC_POD_NAMESPACE = "svc-from-env";
  try {
    const rules = alertRulesFromConfig(
      config,
      db,
      () => 0,
      { warn() {} },
      () => kubeConfigForServer(url),
    );
    await rules.file.sync();
    const o = api.prometheusRule("svc-from-env", PROMETHEUS_RULE_NAME);
    assert.equal(o?.metadata.labels?.release, "kube-prometheus");
    assert.equal(rules.sync().state, "synced");
    // without kubernetesContext nothing is written to Kubernetes and, without a directory, the sync is unconfigured
    const off = alertRulesFromConfig(parseConsoleConfig("", {}).config, db, () => 0, { warn() {} });
    await off.file.sync();
    assert.equal(off.sync().state, "unconfigured");
  } finally {
    if (saved === undefined) delete process.env.SVC_POD_NAMESPACE;
    else process.env.SVC_POD_NAMESPACE = saved;
    await db.close();
  }
});

test("the console's namespace: SVC_POD_NAMESPACE, POD_NAMESPACE, the service account file, else default", () => {
  const file = join(dir, "namespace");
  writeFileSync(file, "from-file\n");
  assert.equal(consoleNamespace({ SVC_POD_NAMESPACE: "a", POD_NAMESPACE: "b" }, file), "a");
  assert.equal(consoleNamespace({ POD_NAMESPACE: "b" }, file), "b");
  assert.equal(consoleNamespace({}, file), "from-file");
  assert.equal(consoleNamespace({}, join(dir, "absent")), "default");
});
