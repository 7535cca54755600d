// The rule evaluator's alert list as the console reads it (issue 35): Prometheus and vmalert answer GET
// /api/v1/alerts in the same shape but for two details, and the console must read both the same way. The servers
// here answer with the bodies each evaluator sends (recorded from Prometheus 2.42 and vmalert 1.79).
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, test } from "node:test";
import { parseConsoleConfig } from "../config/load.ts";
import { evaluatorUrl } from "../config/rules.ts";
import { prometheusAlertSource } from "./poller.ts";

const servers: Server[] = [];
after(() => {
  for (const s of servers) s.close();
});

/** An evaluator answering GET /api/v1/alerts with `body`; the paths asked are recorded. */
async function evaluator(status: number, body: unknown): Promise<{ url: string; asked: string[] }> {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked };
}

test("vmalert's null list is no alerts, and its group label on the console's group is taken off", async () => {
  const none = await evaluator(200, { status: "success", data: { alerts: null } });
  assert.deepEqual(await prometheusAlertSource(none.url)(), []);
  assert.deepEqual(none.asked, ["GET /api/v1/alerts"]);

  const vmalert = await evaluator(200, {
    status: "success",
    data: {
      alerts: [
        {
          state: "firing",
          name: "svc_tcp",
          value: "1",
          labels: {
            alertgroup: "svc-console",
            alertname: "svc_tcp",
            svc_rule_id: "r1",
            severity: "critical",
          },
          activeAt: "2026-11-28T08:01:36.833287025Z",
        },
        {
          state: "firing",
          labels: { alertgroup: "operators-own", alertname: "Other" },
          activeAt: "2026-11-28T08:01:36Z",
        },
      ],
    },
  });
  const [ours, theirs] = await prometheusAlertSource(vmalert.url)();
  assert.deepEqual(ours?.labels, { alertname: "svc_tcp", svc_rule_id: "r1", severity: "critical" });
  assert.equal(ours?.activeAt, "2026-11-28T08:01:36.833287025Z");
  // another group's label is the operator's business: left as it is
  assert.deepEqual(theirs?.labels, { alertgroup: "operators-own", alertname: "Other" });
});

test("an evaluator that fails or answers another shape is an error, not an empty list", async () => {
  for (const [status, body] of [
    [503, { status: "error", error: "not ready" }],
    [200, { status: "success", data: {} }],
    [200, { status: "success", data: { alerts: "none" } }],
  ] as const) {
    const e = await evaluator(status, body);
    await assert.rejects(prometheusAlertSource(e.url)(), /prometheus alerts/, JSON.stringify(body));
  }
});

test("alerts.evaluatorUrl names the evaluator apart from the query endpoint; it needs prometheus.url", () => {
  const both = parseConsoleConfig(
    "console:\n  prometheus:\n    url: http://vm:8428\n  alerts:\n    evaluatorUrl: http://vmalert:8880\n",
    {},
  );
  assert.equal(evaluatorUrl(both.config), "http://vmalert:8880");
  assert.equal(both.config.prometheus.url, "http://vm:8428");
  const one = parseConsoleConfig("console:\n  prometheus:\n    url: http://prom:9090\n", {});
  assert.equal(evaluatorUrl(one.config), "http://prom:9090");
  assert.equal(evaluatorUrl(parseConsoleConfig("", {}).config), "");
  assert.throws(
    () => parseConsoleConfig("console:\n  alerts:\n    evaluatorUrl: http://vmalert:8880\n", {}),
    /console\.alerts\.evaluatorUrl: needs prometheus\.url/,
  );
  for (const bad of ["ftp://x", "http://vmalert:8880/", "not a url"])
    assert.throws(
      () =>
        parseConsoleConfig(
          `console:\n  prometheus:\n    url: http://p\n  alerts:\n    evaluatorUrl: ${bad}\n`,
          {},
        ),
      /console\.alerts\.evaluatorUrl/,
      bad,
    );
});
