import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Lab } from "@svc/lab";
import type { TopologySnapshot } from "@svc/protocol";
import { eventually, skipUnless } from "../helpers/env.ts";

// The lab without network namespaces (what a non-root user gets): agents on loopback, the console on PGlite
// with a bootstrap admin, no Prometheus.
describe("lab on loopback with the console", skipUnless(), () => {
  let lab: Lab;

  before(async () => {
    lab = new Lab({
      removeDirOnStop: true,
      agents: 2,
      netns: false,
      prometheus: false,
      config: { checkers: { tcp: { interval: "1s" }, udp: { interval: "1s" }, icmp: { interval: "1s" } } },
    });
    await lab.start();
  });
  after(async () => {
    await lab?.stop();
  });

  test("agents on loopback probe each other", async () => {
    const topo = (await (await fetch(`${lab.controllerUrl}/api/v1/topology`)).json()) as TopologySnapshot;
    assert.deepEqual(topo.agents.map((a) => a.nodeName).sort(), ["node-1", "node-2"]);
    await eventually(
      "node-1 measured node-2 over tcp",
      async () => {
        const text = await (await fetch(`${lab.node("node-1").metricsUrl}/metrics`)).text();
        return /svc_tcp_results_total\{[^}]*destination_node="node-2"[^}]*result="success"\} [1-9]/.test(text)
          ? true
          : undefined;
      },
      20_000,
    );
  });

  test("the printed admin credentials sign in to the console, which serves the web app", async () => {
    assert.ok(lab.consoleUrl && lab.consoleAdmin, "console started");
    const page = await fetch(`${lab.consoleUrl}/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<div id="root">|<script/);
    const bad = await fetch(`${lab.consoleUrl}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "admin", password: "not-the-password" }),
    });
    assert.equal(bad.status, 401);
    const ok = await fetch(`${lab.consoleUrl}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(lab.consoleAdmin),
    });
    assert.equal(ok.status, 200, await ok.text());
    const cookies = ok.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const me = (await (
      await fetch(`${lab.consoleUrl}/api/v1/auth/me`, { headers: { cookie: cookies } })
    ).json()) as {
      roles?: string[];
    };
    assert.ok(JSON.stringify(me).includes("admin"), `signed in as admin: ${JSON.stringify(me)}`);
  });

  test("the console is fed by the controller's event stream: an agent leaving is a stored TopologyChanged row", async () => {
    assert.ok(lab.consoleUrl && lab.consoleAdmin, "console started");
    const login = await fetch(`${lab.consoleUrl}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(lab.consoleAdmin),
    });
    assert.equal(login.status, 200);
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const history = async (): Promise<{ scope: string; summary: string }[]> => {
      const res = await fetch(`${lab.consoleUrl}/api/v1/events?type=TopologyChanged&limit=200`, {
        headers: { cookie },
      });
      assert.equal(res.status, 200);
      return ((await res.json()) as { events: { scope: string; summary: string }[] }).events;
    };
    // the agents registered before the console subscribed: the console holds what happens from then on, and its
    // baseline; an agent stopping now is listed within one agent TTL (30 s)
    lab.node("node-2").process.child.kill("SIGTERM");
    await eventually(
      "node-2 leaving in the console's history",
      async () =>
        (await history()).some(
          (e) => e.scope === "node-2" && e.summary.startsWith("Topology changed: agent-left"),
        )
          ? true
          : undefined,
      40_000,
    );
  });
});
