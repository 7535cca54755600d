import assert from "node:assert/strict";
import { test } from "node:test";
import Fastify, { type FastifyInstance } from "fastify";
import type { Logger } from "../logger.ts";
import type { Registration } from "../registry/agent.ts";
import { AgentRegistry } from "../registry/registry.ts";
import { DiscoveryList } from "./discovery.ts";
import { registerScrapeSdRoutes, SCRAPE_SD_PATH } from "./scrape-sd-routes.ts";

function reg(over: Partial<Registration>): Registration {
  return {
    agentId: "",
    nodeName: "n",
    address: "198.18.0.1",
    zone: "z1",
    labels: {},
    capabilities: [],
    httpPort: 8080,
    udpPort: 9090,
    metricsPort: 9100,
    version: "2.5.0",
    ...over,
  };
}
const ext = { "svc.io/external": "true" };

interface Fixture {
  registry: AgentRegistry;
  http: FastifyInstance;
  metrics: FastifyInstance;
  logs: { obj: object; msg?: string }[];
  leader: { value: boolean };
}

function fixture(enabled = true): Fixture {
  const registry = new AgentRegistry({ ttlMs: 60_000 });
  const logs: { obj: object; msg?: string }[] = [];
  const logger: Logger = {
    debug() {},
    info: (obj, msg) => logs.push({ obj, msg }),
    warn() {},
    error() {},
  };
  const leader = { value: true };
  const discovery = new DiscoveryList({ agents: () => registry.list(), fallbackMetricsPort: 9091, logger });
  const deps = { discovery, isLeader: () => leader.value, enabled };
  const http = Fastify();
  const metrics = Fastify();
  registerScrapeSdRoutes(http, deps);
  registerScrapeSdRoutes(metrics, deps);
  return { registry, http, metrics, logs, leader };
}

test("no external agents: literal [] with 200, JSON, no-store, on both listeners", async () => {
  const f = fixture();
  f.registry.register(reg({ nodeName: "in-cluster", labels: { "svc.io/host-network": "true" } }));
  for (const app of [f.http, f.metrics]) {
    const res = await app.inject({ method: "GET", url: SCRAPE_SD_PATH });
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, "[]");
    assert.match(String(res.headers["content-type"]), /^application\/json/);
    assert.equal(res.headers["cache-control"], "no-store");
  }
});

test("one group per external agent, ordered by node then id, fixed labels, IPv6 bracketed, dedup first wins", async () => {
  const f = fixture();
  f.registry.register(reg({ agentId: "b-id", nodeName: "host-b", address: "fd00:198:18::7", labels: ext }));
  f.registry.register(
    reg({ agentId: "a-id", nodeName: "host-a", address: "198.18.0.5", labels: { ...ext, team: "x" } }),
  );
  // same target address as host-a (dedup: host-a sorts first and wins)
  f.registry.register(reg({ agentId: "c-id", nodeName: "host-c", address: "198.18.0.5", labels: ext }));
  f.registry.register(reg({ agentId: "in", nodeName: "aaa-in-cluster", zone: "z9" }));
  const res = await f.metrics.inject({ method: "GET", url: SCRAPE_SD_PATH });
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json(), [
    {
      targets: ["198.18.0.5:9100"],
      labels: { node: "host-a", zone: "external", external: "true", agent_id: "a-id" },
    },
    {
      targets: ["[fd00:198:18::7]:9100"],
      labels: { node: "host-b", zone: "external", external: "true", agent_id: "b-id" },
    },
  ]);
});

test("an agent without metricsPort gets the controller's port, logged once per agent id", async () => {
  const f = fixture();
  f.registry.register(reg({ agentId: "old", nodeName: "old-host", metricsPort: 0, labels: ext }));
  for (const app of [f.http, f.metrics, f.http]) {
    const res = await app.inject({ method: "GET", url: SCRAPE_SD_PATH });
    assert.deepEqual(
      res.json().map((g: { targets: string[] }) => g.targets),
      [["198.18.0.1:9091"]],
    );
  }
  const substitutions = f.logs.filter((l) => /metricsPort/.test(l.msg ?? ""));
  assert.equal(substitutions.length, 1);
  assert.deepEqual(substitutions[0]?.obj, { agentId: "old", nodeName: "old-host", metricsPort: 9091 });
});

test("standby answers 503 not the leader as text/plain, never an empty list", async () => {
  const f = fixture();
  f.leader.value = false;
  for (const app of [f.http, f.metrics]) {
    const res = await app.inject({ method: "GET", url: SCRAPE_SD_PATH });
    assert.equal(res.statusCode, 503);
    assert.equal(res.body, "not the leader");
    assert.match(String(res.headers["content-type"]), /^text\/plain/);
  }
});

test("any method other than GET answers 405, even on a standby and with a body", async () => {
  const f = fixture();
  for (const method of ["POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"] as const) {
    for (const leader of [true, false]) {
      f.leader.value = leader;
      const res = await f.http.inject({
        method,
        url: SCRAPE_SD_PATH,
        headers: { "content-type": "application/json" },
        ...(method === "HEAD" || method === "OPTIONS" ? {} : { payload: "{not json" }),
      });
      assert.equal(res.statusCode, 405, `${method} leader=${leader}`);
      assert.equal(res.headers.allow, "GET");
    }
  }
});

test("controller.prometheusSD.enabled false: 404 on both listeners", async () => {
  const f = fixture(false);
  f.registry.register(reg({ agentId: "x", labels: ext }));
  for (const app of [f.http, f.metrics]) {
    assert.equal((await app.inject({ method: "GET", url: SCRAPE_SD_PATH })).statusCode, 404);
    assert.equal((await app.inject({ method: "POST", url: SCRAPE_SD_PATH })).statusCode, 404);
  }
});

test("served over a real socket", async () => {
  const f = fixture();
  f.registry.register(reg({ agentId: "e1", nodeName: "edge-1", labels: ext }));
  const address = await f.metrics.listen({ host: "127.0.0.1", port: 0 });
  try {
    const res = await fetch(`${address}${SCRAPE_SD_PATH}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "no-store");
    const body = (await res.json()) as { labels: Record<string, string> }[];
    assert.deepEqual(body[0]?.labels, { node: "edge-1", zone: "external", external: "true", agent_id: "e1" });
  } finally {
    await f.metrics.close();
  }
});
