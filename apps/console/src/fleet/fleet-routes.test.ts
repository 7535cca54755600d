/**
 * The fleet API against the real prometheus binary scraping a fake exporter with known values, and a real
 * controller holding the registrations (testdata/fleet-fixture.ts), through an anonymous-mode console.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type {
  FleetMatrix,
  FleetNode,
  FleetOverview,
  FleetPair,
  FleetTopology,
  MatrixCell,
} from "@svc/contract";
import { type FleetMatrixGrid, fromGrid, gridTier } from "@svc/matrix-grid";
import { eventually, needsBinary, skipUnless } from "../../../../test/helpers/env.ts";
import type { ConsoleServer } from "../server.ts";
import { startConsole } from "../testing/harness.ts";
import { NOW_FRESH_MS } from "./fleet-service.ts";
import { PrometheusClient } from "./prometheus-client.ts";
import { anyOf, presence } from "./promql.ts";
import { type FleetFixture, startFleetFixture } from "./testdata/fleet-fixture.ts";

const PROM = "/usr/bin/prometheus";
const opts = skipUnless(needsBinary(PROM));
let fx: FleetFixture;
let server: ConsoleServer;

async function get<T>(path: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${server.httpUrl}${path}`);
  return { status: res.status, body: (await res.json()) as T };
}

const cell = (m: FleetMatrix, s: string, d: string): MatrixCell | undefined =>
  m.cells.find((c) => c.source === s && c.destination === d);

before(async () => {
  if (opts.skip) return;
  fx = await startFleetFixture(PROM);
  server = await startConsole(
    `prometheus:\n  url: ${fx.prometheusUrl}\ncontroller:\n  url: ${fx.controllerUrl}\n`,
  );
  // wait until every window has two samples: the recovering pair's fail counter grew and tcp a->b failed
  await eventually(
    "matrices populated",
    async () => {
      const tcp = (await get<FleetMatrix>("/api/v1/fleet/matrix?protocol=tcp")).body;
      const pmtu = (await get<FleetMatrix>("/api/v1/fleet/matrix?protocol=pmtu")).body;
      const ready =
        fx.exporter.scrapes() >= 5 &&
        cell(tcp, "a", "b")?.tier === "failing" &&
        cell(tcp, "a", "c")?.tier === "healthy" &&
        cell(pmtu, "c", "b")?.pmtu?.badge === "Recovering";
      return ready ? true : undefined;
    },
    30_000,
  );
});

after(async () => {
  await server?.stop();
  await fx?.close();
});

test("tcp matrix: failing, healthy, no data, unplanned; nodes with planes; sparse", opts, async () => {
  const { status, body: m } = await get<FleetMatrix>("/api/v1/fleet/matrix?protocol=tcp");
  assert.equal(status, 200);
  assert.equal(m.protocol, "tcp");
  assert.equal(m.sparse, true);
  assert.deepEqual(
    m.nodes.map((n) => [n.name, n.zone, n.external, n.planes.includes("pmtu")]),
    [
      ["a", "zone-1", false, true],
      ["b", "zone-1", false, true],
      ["c", "zone-2", false, true],
      ["d", "zone-2", false, false],
    ],
  );
  // a sparse plan: the cells are the planned pairs; the four outside it are left out, and read as unplanned
  assert.equal(m.cells.length, 8);
  assert.deepEqual(cell(m, "a", "b"), { source: "a", destination: "b", tier: "failing", failRatio: 1 });
  assert.deepEqual(cell(m, "a", "c"), { source: "a", destination: "c", tier: "healthy", failRatio: 0 });
  assert.deepEqual(cell(m, "d", "a"), { source: "d", destination: "a", tier: "nodata" });
  for (const [s, d] of [
    ["a", "d"],
    ["b", "c"],
    ["c", "a"],
    ["d", "b"],
  ] as const) {
    assert.equal(cell(m, s, d), undefined, `${s}->${d} is not planned`);
    const g = await get<FleetMatrixGrid>("/api/v1/fleet/matrix?protocol=tcp&layout=grid");
    assert.equal(gridTier(g.body, s, d), "unplanned");
  }
});

test("udp loss and icmp RTT degrade exactly their pair", opts, async () => {
  const udp = (await get<FleetMatrix>("/api/v1/fleet/matrix?protocol=udp")).body;
  assert.deepEqual(cell(udp, "b", "d"), {
    source: "b",
    destination: "d",
    tier: "degraded",
    failRatio: 0,
    lossRatio: 0.2,
  });
  assert.equal(cell(udp, "a", "b")?.tier, "healthy");
  assert.deepEqual(udp.cells.filter((c) => c.tier === "degraded" || c.tier === "failing").length, 1);
  const icmp = (await get<FleetMatrix>("/api/v1/fleet/matrix?protocol=icmp")).body;
  const slow = cell(icmp, "c", "d");
  assert.equal(slow?.tier, "degraded");
  assert.ok((slow?.rttP95Seconds ?? 0) > 0.1 && (slow?.rttP95Seconds ?? 1) <= 0.25, JSON.stringify(slow));
  assert.equal(cell(icmp, "c", "b")?.tier, "healthy");
  assert.equal(cell(icmp, "c", "b")?.rttP95Seconds, undefined);
});

test("pmtu matrix: Full size, Reduced, Black hole, Recovering, not run", opts, async () => {
  const m = (await get<FleetMatrix>("/api/v1/fleet/matrix?protocol=pmtu")).body;
  assert.deepEqual(cell(m, "a", "b")?.pmtu, { badge: "Full size", bytes: 1500, probeBytes: 1500 });
  assert.equal(cell(m, "a", "b")?.tier, "healthy");
  assert.deepEqual(cell(m, "a", "c"), {
    source: "a",
    destination: "c",
    tier: "degraded",
    pmtu: { badge: "Reduced", bytes: 1400, probeBytes: 1500 },
  });
  assert.deepEqual(cell(m, "b", "a"), {
    source: "b",
    destination: "a",
    tier: "failing",
    pmtu: { badge: "Black hole", bytes: 1400, probeBytes: 1500 },
  });
  assert.equal(cell(m, "c", "b")?.pmtu?.badge, "Recovering");
  assert.deepEqual(cell(m, "d", "a"), { source: "d", destination: "a", tier: "notrun" });
  assert.deepEqual(cell(m, "d", "c"), { source: "d", destination: "c", tier: "notrun" });
});

test("node page: To and From peers, tier, health percent, scored of total", opts, async () => {
  const { status, body: n } = await get<FleetNode>("/api/v1/fleet/nodes/a?protocol=tcp");
  assert.equal(status, 200);
  assert.equal(n.tier, "failing");
  assert.equal(n.healthPercent, 0);
  assert.deepEqual(
    n.to.map((r) => [r.peer, r.tier]),
    [
      ["b", "failing"],
      ["c", "healthy"],
      ["d", "unplanned"],
    ],
  );
  assert.deepEqual(
    n.from.map((r) => [r.peer, r.tier]),
    [
      ["b", "healthy"],
      ["c", "unplanned"],
      ["d", "nodata"],
    ],
  );
  assert.equal(n.total, 4);
  assert.equal(n.scored, 3);
  const c = n.to.find((r) => r.peer === "c");
  assert.ok((c?.rttP95Seconds ?? 0) > 0 && (c?.rttP95Seconds ?? 1) < 0.001, JSON.stringify(c));
  const pm = (await get<FleetNode>("/api/v1/fleet/nodes/a?protocol=pmtu")).body;
  assert.deepEqual(
    pm.to.find((r) => r.peer === "c"),
    { peer: "c", tier: "degraded", pmtuBytes: 1400, probeBytes: 1500 },
  );
  assert.equal(pm.healthPercent, undefined, "a PMTU badge is not a ratio");
  const unknown = await get<{ error: { code: string } }>("/api/v1/fleet/nodes/zz");
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error.code, "unknown_node");
});

test("pair page: per-protocol health, history, latest MTR path", opts, async () => {
  const { status, body: p } = await get<FleetPair>("/api/v1/fleet/pairs/a/b?window=15m");
  assert.equal(status, 200);
  assert.equal(p.protocols.tcp.tier, "failing");
  assert.equal(p.protocols.tcp.failRatio, 1);
  assert.equal(p.protocols.udp.tier, "healthy");
  assert.equal(p.protocols.pmtu.pmtu?.badge, "Full size");
  assert.ok(
    p.protocols.udp.history.some((h) => (h.rttSeconds ?? 0) > 0),
    "udp RTT history",
  );
  assert.ok(
    p.protocols.tcp.history.some((h) => h.failRatio === 1),
    "tcp fail history",
  );
  assert.deepEqual(p.mtr?.hops, [
    { number: 1, ip: "198.18.0.1", rttSeconds: 0.0005 },
    { number: 2, ip: "198.18.0.2", rttSeconds: 0.0011 },
  ]);
  assert.ok(Math.abs(Date.parse(p.mtr?.at ?? "") - Date.now()) < 60_000);
  assert.equal((await get("/api/v1/fleet/pairs/a/zz")).status, 404);
  assert.equal((await get("/api/v1/fleet/pairs/a/b?window=2d")).status, 400);
});

test("overview and topology", opts, async () => {
  const o = (await get<FleetOverview>("/api/v1/fleet/overview")).body;
  assert.equal(o.agents, 4);
  assert.equal(o.missingAgents, 0);
  assert.deepEqual(o.pairs.tcp, { monitored: 7, failing: 1 });
  assert.deepEqual(o.pairs.pmtu, { monitored: 6, failing: 1 });
  assert.deepEqual(
    o.worstPairs
      .slice(0, 2)
      .map((w) => [w.protocol, w.source, w.destination])
      .sort(),
    [
      ["pmtu", "b", "a"],
      ["tcp", "a", "b"],
    ],
  );
  const t = (await get<FleetTopology>("/api/v1/fleet/topology")).body;
  assert.deepEqual(
    t.nodes.find((n) => n.name === "a"),
    {
      name: "a",
      zone: "zone-1",
      ready: true,
      external: false,
      agent: { id: "id-a", podIP: "198.18.0.11" },
    },
  );
  assert.deepEqual(t.links.find((l) => l.source === "a" && l.destination === "b")?.tier, "failing");
  assert.equal(
    t.links.find((l) => l.source === "a" && l.destination === "d"),
    undefined,
    "unplanned: no link",
  );
  assert.equal(t.links.find((l) => l.source === "c" && l.destination === "d")?.tier, "degraded");
});

test("a Prometheus answer over maxResponseBytes is refused: 502 metrics_unreachable", opts, async () => {
  const small = await startConsole(
    `prometheus:\n  url: ${fx.prometheusUrl}\n  maxResponseBytes: 300\ncontroller:\n  url: ${fx.controllerUrl}\n`,
  );
  try {
    const res = await fetch(`${small.httpUrl}/api/v1/fleet/nodes/a?protocol=udp`);
    assert.equal(res.status, 502);
    const body = (await res.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, "metrics_unreachable");
    assert.match(body.error.message, /maxResponseBytes/);
  } finally {
    await small.stop();
  }
});

test("label regexes of node names with dots and quotes parse in the real Prometheus", opts, async () => {
  const prom = new PrometheusClient({ url: fx.prometheusUrl, queryTimeoutMs: 5000, maxResponseBytes: 1e6 });
  const rows = await prom.query(
    presence(
      "svc_tcp_results_total",
      anyOf("source_node", ["a", "ip-10-0-0-1.ec2.internal", 'we"ird\\node']),
    ),
  );
  assert.deepEqual([...new Set(rows.map((r) => r.metric.source_node))], ["a"]);
});

test(
  "a console warms the TCP matrix at start: the first viewer gets a snapshot computed before asking",
  opts,
  async () => {
    const fresh = await startConsole(
      `prometheus:\n  url: ${fx.prometheusUrl}\ncontroller:\n  url: ${fx.controllerUrl}\n`,
    );
    try {
      // the start-up computation has ended (however long a loaded machine took), then the first viewer comes
      await fresh.whenFleetWarm();
      await new Promise((r) => setTimeout(r, 5)); // a request strictly after it, on a millisecond clock
      const asked = Date.now();
      const read = async (p: string) =>
        (await (await fetch(`${fresh.httpUrl}/api/v1/fleet/matrix?protocol=${p}`)).json()) as FleetMatrix;
      const tcp = await read("tcp");
      const udp = await read("udp");
      assert.ok(
        Date.parse(tcp.generatedAt) < asked,
        `tcp ${tcp.generatedAt} computed before ${new Date(asked).toISOString()}`,
      );
      assert.ok(Date.parse(udp.generatedAt) >= asked - 5, "udp: not warmed, computed for the request");
      assert.equal(cell(tcp, "a", "b")?.tier, "failing", "the warmed snapshot holds the real figures");
    } finally {
      await fresh.stop();
    }
  },
);

test("layout=grid carries the same matrix as the cells layout; a bad layout is 400", opts, async () => {
  for (const protocol of ["tcp", "udp", "icmp", "pmtu"] as const) {
    // both layouts of one snapshot (a background refresh may land between two requests: ask again)
    let cells = (await get<FleetMatrix>(`/api/v1/fleet/matrix?protocol=${protocol}`)).body;
    let grid = await get<FleetMatrixGrid>(`/api/v1/fleet/matrix?protocol=${protocol}&layout=grid`);
    for (let i = 0; i < 5 && grid.body.generatedAt !== cells.generatedAt; i++) {
      cells = (await get<FleetMatrix>(`/api/v1/fleet/matrix?protocol=${protocol}`)).body;
      grid = await get<FleetMatrixGrid>(`/api/v1/fleet/matrix?protocol=${protocol}&layout=grid`);
    }
    assert.equal(grid.status, 200);
    assert.equal(grid.body.layout, "grid");
    assert.equal(grid.body.generatedAt, cells.generatedAt, `${protocol}: the same snapshot`);
    assert.deepEqual(grid.body.nodes, cells.nodes);
    // expanded, the grid is the cells layout plus the pairs outside the sparse plan (unplanned)
    const expanded = fromGrid(grid.body);
    assert.deepEqual(
      expanded.filter((c) => c.tier !== "unplanned"),
      cells.cells,
      `${protocol}: expands to the cells layout`,
    );
    assert.equal(expanded.length, 12);
  }
  const bad = await get<{ error: { code: string; message: string } }>("/api/v1/fleet/matrix?layout=table");
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, "invalid_input");
  assert.match(bad.body.error.message, /layout must be cells or grid/);
});

test(
  "Time Machine: instant queries evaluate at `at`; without stored topology past reads are 503",
  opts,
  async () => {
    const prom = new PrometheusClient({ url: fx.prometheusUrl, queryTimeoutMs: 5000, maxResponseBytes: 1e6 });
    const then = Math.floor(Date.now() / 1000) - 600;
    const [at] = await prom.atTime(then).query("vector(time())");
    assert.equal(at?.value, then);
    const [explicit] = await prom.atTime(then).query("vector(time())", then - 60);
    assert.equal(explicit?.value, then - 60, "an explicit time still wins");
    // this console has no database: nothing to rebuild the past inventory from
    const past = new Date(Date.now() - 60_000).toISOString();
    for (const path of [
      `/api/v1/fleet/matrix?protocol=tcp&at=${past}`,
      `/api/v1/fleet/topology?at=${past}`,
      `/api/v1/fleet/overview?at=${past}`,
      `/api/v1/fleet/nodes/a?at=${past}`,
      `/api/v1/fleet/pairs/a/b?at=${past}`,
    ]) {
      const r = await get<{ error: { code: string } }>(path);
      assert.equal(r.status, 503, path);
      assert.equal(r.body.error.code, "history_unavailable", path);
    }
    const future = new Date(Date.now() + 3_600_000).toISOString();
    const f = await get<{ error: { message: string } }>(`/api/v1/fleet/matrix?at=${future}`);
    assert.equal(f.status, 400);
    assert.match(f.body.error.message, /future/);
    const bad = await get<{ error: { message: string } }>("/api/v1/fleet/topology?at=yesterday");
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /ISO 8601/);
  },
);

/** Instant queries Prometheus has answered so far (its own request counter). */
async function promQueries(): Promise<number> {
  const text = await (await fetch(`${fx.prometheusUrl}/metrics`)).text();
  let n = 0;
  for (const line of text.split("\n"))
    if (line.startsWith("prometheus_http_requests_total{") && line.includes('handler="/api/v1/query"'))
      n += Number(line.slice(line.lastIndexOf(" ") + 1));
  return n;
}

test("viewers asking for the same node page at once share one set of Prometheus reads", opts, async () => {
  const one = await get<FleetNode>("/api/v1/fleet/nodes/a?protocol=tcp");
  // the page just read is served for NOW_FRESH_MS without asking Prometheus: let it age, so the 20 read afresh
  await new Promise((r) => setTimeout(r, NOW_FRESH_MS));
  const before = await promQueries();
  const pages = await Promise.all(
    Array.from({ length: 20 }, () => get<FleetNode>("/api/v1/fleet/nodes/a?protocol=tcp")),
  );
  const asked = (await promQueries()) - before;
  for (const p of pages) {
    assert.equal(p.status, 200);
    assert.deepEqual(
      p.body.to.map((r) => [r.peer, r.tier]),
      one.body.to.map((r) => [r.peer, r.tier]),
    );
  }
  // one tcp node page is 10 instant queries; 20 pages read apart were 200. The console's background matrix
  // refreshes may add a pass of theirs (about 6 a protocol) in the same moment
  assert.ok(asked >= 10 && asked < 60, `Prometheus answered ${asked} queries for 20 concurrent node pages`);
});
