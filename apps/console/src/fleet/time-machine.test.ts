/**
 * The Time Machine on the fleet API with data (spec §1, §3.1; issue 19 point 8): a console with a database fed by a
 * real controller's event stream, a real Prometheus scraping the fleet fixture. A node that joined and then left is
 * in the matrix, the overview and its node page as of an instant between the two, and absent (its node page a 404)
 * live; the fixture's failing pair reads failing at that instant as it does now (Prometheus evaluated there).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { FeedEvent, FleetMatrix, FleetNode, FleetOverview } from "@svc/contract";
import { RawAgentClient, registerRequest, waitUntil } from "@svc/controller";
import { eventually, needsBinary, skipUnless } from "../../../../test/helpers/env.ts";
import type { ConsoleServer } from "../server.ts";
import { startConsole } from "../testing/harness.ts";
import { type TestDatabases, testDatabases } from "../testing/test-db.ts";
import { type FleetFixture, startFleetFixture } from "./testdata/fleet-fixture.ts";

const PROM = "/usr/bin/prometheus";
const opts = skipUnless(needsBinary(PROM));
let fx: FleetFixture;
let dbs: TestDatabases;
let server: ConsoleServer;

async function get<T>(path: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${server.httpUrl}${path}`);
  return { status: res.status, body: (await res.json()) as T };
}

const scopeEvents = async (scope: string) =>
  (await get<{ events: FeedEvent[] }>(`/api/v1/events?scope=${scope}&limit=50`)).body.events;

before(async () => {
  if (opts.skip) return;
  fx = await startFleetFixture(PROM, undefined, true);
  dbs = await testDatabases();
  const { db } = await dbs.fresh();
  server = await startConsole(
    `prometheus:\n  url: ${fx.prometheusUrl}\ncontroller:\n  url: ${fx.controllerUrl}\n  grpcAddress: ${fx.controllerGrpc}\n`,
    { db },
  );
  await server.whenReady();
  await waitUntil(() => server.history.ingester?.status().connected === true, "fed by the controller stream");
});

after(async () => {
  await server?.stop();
  await dbs?.close();
  await fx?.close();
});

test(
  "a node that has since left is in the matrix, overview and node page as of an instant; live it is gone",
  opts,
  async () => {
    const matrix = async (at?: string) =>
      (await get<FleetMatrix>(`/api/v1/fleet/matrix?protocol=tcp${at ? `&at=${at}` : ""}`)).body;
    const failingAB = (m: FleetMatrix) =>
      m.cells.find((c) => c.source === "a" && c.destination === "b")?.tier === "failing";
    await eventually(
      "tcp a->b failing live",
      async () => (failingAB(await matrix()) ? true : undefined),
      30_000,
    );

    const raw = new RawAgentClient(fx.controller.grpcPort);
    let then = "";
    try {
      const e = await raw.register(
        registerRequest({
          node_name: "e",
          agent_id: "id-e",
          advertise_address: "198.18.0.29",
          zone: "zone-2",
          capabilities: ["plane:tcp", "plane:udp", "plane:icmp", "plane:mtr"],
          version: "2.5.0",
        }),
      );
      await waitUntil(async () => (await scopeEvents("e")).length >= 2, "e joined, stored");
      await new Promise((r) => setTimeout(r, 1100));
      then = new Date().toISOString();
      await new Promise((r) => setTimeout(r, 1100));
      await raw.deregister(e.agent_id);
      await waitUntil(async () => (await scopeEvents("e")).length >= 4, "e left, stored");
    } finally {
      raw.close();
    }

    // live figures come from the console's snapshot, refreshed in the background: e leaves it at the next refresh
    const names = (m: FleetMatrix) => m.nodes.map((n) => n.name).sort();
    const live = await eventually(
      "e gone from the live matrix",
      async () => {
        const m = await matrix();
        return names(m).includes("e") ? undefined : m;
      },
      30_000,
    );
    const past = await matrix(then);
    assert.deepEqual(names(live), ["a", "b", "c", "d"]);
    assert.deepEqual(names(past), ["a", "b", "c", "d", "e"]);
    assert.ok(
      past.cells.some((c) => c.source === "e" || c.destination === "e"),
      "e's pairs are cells of the past matrix",
    );
    assert.ok(failingAB(past), "Prometheus evaluated at the instant: a->b was failing then too");

    const ov = (await get<FleetOverview>(`/api/v1/fleet/overview?at=${then}`)).body;
    assert.equal(ov.agents, 5);
    await eventually(
      "the live overview counts 4 agents",
      async () => ((await get<FleetOverview>("/api/v1/fleet/overview")).body.agents === 4 ? true : undefined),
      30_000,
    );

    const nodeLive = await get<{ error: { code: string } }>("/api/v1/fleet/nodes/e");
    assert.equal(nodeLive.status, 404);
    const nodePast = await get<FleetNode>(`/api/v1/fleet/nodes/e?at=${then}`);
    assert.equal(nodePast.status, 200, JSON.stringify(nodePast.body));
    assert.equal(nodePast.body.name, "e");
  },
);
