// The lab on VictoriaMetrics (issue 35): `svc lab --metrics victoria-metrics` as a test. victoria-metrics answers the
// console's queries, vmagent scrapes the agents, the controller and the console, vmalert evaluates the recording
// rules and the console's alert rule file (reloaded through POST /-/reload). On it, the checks of the Prometheus lab:
// - an isolated node is named by the localization, and an operator sees it where she looks (Chromium: the
//   Overview's card, the Matrix's outline, Investigate's suspects, the Node and Pair pages), and the Time Machine
//   answers the suspect of an instant while it held, from history (test/e2e/testdata/lab-faults-suite.ts);
// - a pair's tcp outage turns its Matrix cell red and the Pair page's tcp tier failing; an alert rule on it fires
//   (GET /api/v1/alerts, a signed webhook `alert.fired` with vmalert's activation time and the rule's labels only)
//   and resolves after the heal (`alert.resolved`, same firedAt).
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type AlertRule, createAlertRule, type FleetMatrix } from "@svc/contract";
import type { Lab } from "@svc/lab";
import { eventually } from "../helpers/env.ts";
import { pairTier } from "../helpers/lab-tiers.ts";
import { faultSuite } from "./testdata/lab-faults-suite.ts";

const SECRET = "lab-victoria-metrics-signing-secret";

interface Delivery {
  event: string;
  alert: { ruleId: string; labels: Record<string, string>; firedAt: string };
}

/** A webhook receiver in this process: verifies the signature over the raw bytes, then keeps the delivery. */
async function receiver(): Promise<{ url: string; deliveries: Delivery[]; close: () => void }> {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      const want = `sha256=${createHmac("sha256", SECRET).update(raw).digest("hex")}`;
      if (req.headers["x-svc-signature"] !== want) {
        res.writeHead(401).end();
        return;
      }
      deliveries.push(JSON.parse(raw.toString("utf8")) as Delivery);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, deliveries, close: () => server.close() };
}

async function pairOutageAndAlert(lab: Lab, cookie: string): Promise<void> {
  assert.ok(lab.evaluatorUrl, "the lab names vmalert as the rule evaluator");
  const csrf = /__Host-svc_csrf=([^;]+)/.exec(cookie)?.[1] ?? "";
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${lab.consoleUrl}${path}`, {
      method,
      headers: { cookie, "x-csrf-token": csrf, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as unknown };
  };
  const hook = await receiver();
  try {
    const ep = await call("POST", "/api/v1/webhooks", {
      url: hook.url,
      events: ["alert.fired", "alert.resolved"],
      secret: SECRET,
    });
    assert.equal(ep.status, 201, JSON.stringify(ep.body));
    // the rule's expression is checked by the console with an instant query on victoria-metrics (MetricsQL)
    const rule = await call("POST", "/api/v1/alert-rules", {
      name: "tcp node-1 to node-2",
      expr: 'max by (source_node, destination_node) (svc_peer_problem_ratio{plane="tcp",source_node="node-1",destination_node="node-2"}) > 0',
      forSeconds: 0,
      labels: { severity: "critical" },
    });
    assert.equal(rule.status, 201, JSON.stringify(rule.body));
    const ruleId = (rule.body as AlertRule).id;
    const example = await call("POST", "/api/v1/alert-rules", createAlertRule.example);
    assert.equal(example.status, 201, JSON.stringify(example.body));
    // vmalert loads the console's rule file (written, then POST /-/reload)
    await eventually(
      "vmalert holds the console's rules, labelled svc_rule_id",
      async () => {
        const r = (await (await fetch(`${lab.evaluatorUrl}/api/v1/rules`)).json()) as {
          data: { groups: { rules: { name: string; labels?: Record<string, string> }[] | null }[] };
        };
        const rules = r.data.groups.flatMap((g) => g.rules ?? []);
        return rules.some((x) => x.labels?.svc_rule_id === ruleId) ? rules : undefined;
      },
      30_000,
      500,
    );
    // a quiet spell: the poller takes its baseline, nothing fires
    await new Promise((r) => setTimeout(r, 12_000));
    assert.deepEqual(
      hook.deliveries.filter((d) => d.alert.ruleId === ruleId),
      [],
      "nothing fires while the pair is healthy",
    );

    await lab.fault({ kind: "drop", from: "node-1", to: "node-2", protocol: "tcp" });
    await eventually(
      "node-1 -> node-2 red in the tcp matrix",
      async () => {
        const r = await call("GET", "/api/v1/fleet/matrix?protocol=tcp");
        const cell = (r.body as FleetMatrix).cells?.find(
          (c) => c.source === "node-1" && c.destination === "node-2",
        );
        return cell?.tier === "failing" ? cell : undefined;
      },
      60_000,
      1000,
    );
    // the Pair page says so too (its answers about now are kept 1 s: NOW_FRESH_MS)
    await eventually(
      "the Pair page's tcp tier failing",
      async () => ((await pairTier(lab, cookie, "node-1", "node-2", "tcp")) === "failing" ? true : undefined),
      10_000,
      500,
    );
    const fired = await eventually(
      "alert.fired delivered",
      async () => hook.deliveries.find((d) => d.event === "alert.fired" && d.alert.ruleId === ruleId),
      90_000,
      1000,
    );
    assert.equal(fired.alert.labels.alertname, "svc_tcp_node_1_to_node_2");
    assert.equal(fired.alert.labels.severity, "critical");
    assert.equal(fired.alert.labels.svc_rule_id, ruleId);
    assert.ok(!("alertgroup" in fired.alert.labels), "vmalert's group label is not the alert's");
    const current = await call("GET", "/api/v1/alerts");
    const firing = (
      current.body as { alerts: { ruleId: string; state: string; activeAt: string }[] }
    ).alerts.find((a) => a.ruleId === ruleId);
    assert.equal(firing?.state, "firing", JSON.stringify(current.body));
    assert.equal(fired.alert.firedAt, new Date(firing?.activeAt ?? 0).toISOString());

    await lab.heal();
    const resolved = await eventually(
      "alert.resolved delivered",
      async () => hook.deliveries.find((d) => d.event === "alert.resolved" && d.alert.ruleId === ruleId),
      90_000,
      1000,
    );
    assert.equal(resolved.alert.firedAt, fired.alert.firedAt);
    await eventually(
      "node-1 -> node-2 out of red after the heal",
      async () => {
        const tier = await pairTier(lab, cookie, "node-1", "node-2", "tcp");
        return tier !== undefined && tier !== "failing" ? tier : undefined;
      },
      60_000,
      1000,
    );
  } finally {
    hook.close();
  }
}

faultSuite(["isolate-in"], {
  metrics: "victoria-metrics",
  also: {
    name: "a pair's tcp outage: red, and an alert rule on it fires and resolves",
    run: pairOutageAndAlert,
  },
});
