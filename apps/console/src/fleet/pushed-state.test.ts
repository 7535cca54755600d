/**
 * The console's matrix turns a pair red from what its agent reported to the controller (PairStateReporter ->
 * svc.v1.PairStateService -> GET /api/v1/pair-states), not only from what Prometheus has ingested: the real
 * controller and Prometheus of testdata/fleet-fixture.ts (Prometheus holds a -> c healthy throughout), a console,
 * and the agent side's real reporter speaking for agent a.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { FleetMatrix, FleetNode, FleetPair } from "@svc/contract";
import { PairStateReporter, pairStateSender } from "@svc/controller-client";
import { eventually, needsBinary, skipUnless } from "../../../../test/helpers/env.ts";
import type { ConsoleServer } from "../server.ts";
import { startConsole } from "../testing/harness.ts";
import { PrometheusClient } from "./prometheus-client.ts";
import { type FleetFixture, startFleetFixture } from "./testdata/fleet-fixture.ts";

const PROM = "/usr/bin/prometheus";
const opts = skipUnless(needsBinary(PROM));
let fx: FleetFixture;
let server: ConsoleServer;
let reporter: PairStateReporter;
let sender: ReturnType<typeof pairStateSender>;

const tier = async (s: string, d: string) => {
  const m = (await (await fetch(`${server.httpUrl}/api/v1/fleet/matrix?protocol=tcp`)).json()) as FleetMatrix;
  return m.cells.find((c) => c.source === s && c.destination === d)?.tier;
};

before(async () => {
  if (opts.skip) return;
  fx = await startFleetFixture(PROM);
  server = await startConsole(
    `prometheus:\n  url: ${fx.prometheusUrl}\ncontroller:\n  url: ${fx.controllerUrl}\n`,
  );
  await eventually(
    "the matrix from Prometheus: a -> b failing, a -> c healthy",
    async () =>
      fx.exporter.scrapes() >= 3 &&
      (await tier("a", "b")) === "failing" &&
      (await tier("a", "c")) === "healthy"
        ? true
        : undefined,
    60_000,
  );
  sender = pairStateSender(fx.controllerGrpc);
  reporter = new PairStateReporter({ agentId: () => "id-a", send: sender.send });
});

after(async () => {
  reporter?.stop();
  sender?.channel.close();
  await server?.stop();
  await fx?.close();
});

test(
  "a pair reported down is failing in the matrix while Prometheus still holds it healthy",
  opts,
  async () => {
    reporter.set("tcp", "b", 1); // as its counters say
    reporter.set("tcp", "c", 1);
    reporter.start();
    await eventually(
      "a -> c failing from the report",
      async () => ((await tier("a", "c")) === "failing" ? true : undefined),
      15_000,
    );
    const prom = new PrometheusClient({
      url: fx.prometheusUrl,
      queryTimeoutMs: 10_000,
      maxResponseBytes: 1 << 20,
    });
    const fails = await prom.query(
      'increase(svc_tcp_results_total{source_node="a",destination_node="c",result="fail"}[1m])',
    );
    assert.ok(
      fails.every((s) => s.value === 0),
      "Prometheus holds no failure of a -> c",
    );
    assert.equal(await tier("a", "b"), "failing");
    // the Pair and Node pages say the same as the matrix
    await eventually(
      "the pair page and the node page say a -> c is failing",
      async () => {
        const pair = (await (
          await fetch(`${server.httpUrl}/api/v1/fleet/pairs/a/c?window=15m`)
        ).json()) as FleetPair;
        const node = (await (
          await fetch(`${server.httpUrl}/api/v1/fleet/nodes/a?protocol=tcp`)
        ).json()) as FleetNode;
        const row = node.to.find((r) => r.peer === "c");
        return pair.protocols.tcp.tier === "failing" && row?.tier === "failing" ? true : undefined;
      },
      5_000,
    );
    reporter.set("tcp", "c", undefined);
    await eventually(
      "a -> c healthy again",
      async () => ((await tier("a", "c")) === "healthy" ? true : undefined),
      15_000,
    );
    assert.equal(await tier("a", "b"), "failing");
  },
);

test("a reporting source that goes silent is read from Prometheus again", opts, async () => {
  // a reports a -> c down again, then stops: the controller drops it 30 s after its last report, and the
  // console reads a's pairs from the metrics (a -> c healthy)
  reporter.set("tcp", "c", 1);
  await eventually(
    "a -> c failing",
    async () => ((await tier("a", "c")) === "failing" ? true : undefined),
    15_000,
  );
  reporter.stop();
  fx.controller.pairStates.forget("id-a"); // what 30 s of silence does (the staleness is tested on the controller)
  await eventually(
    "a -> c from Prometheus again",
    async () => ((await tier("a", "c")) === "healthy" ? true : undefined),
    15_000,
  );
});
