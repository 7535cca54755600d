/**
 * svc.v1.PairStateService and GET /api/v1/pair-states on a real controller (gRPC and HTTP on 127.0.0.1): what a
 * registered agent reports is listed under its registered node, a change report applies only on top of the report
 * before it, bad reports change nothing, a silent source drops out (the controller's clock, moved by the test),
 * and a deregistered agent's state is gone.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  createPairStateServiceClient,
  grpc,
  type PairStateServiceClient,
  type PairStatesBody,
  type ReportPairStateRequest,
  type ReportPairStateResponse,
} from "@svc/protocol";
import { Controller } from "../controller.ts";
import { RawAgentClient, registerRequest } from "../testing/raw-client.ts";
import { testConfig } from "../testing/test-config.ts";
import { PAIR_STATE_STALE_MS } from "./pair-state-store.ts";

let controller: Controller;
let raw: RawAgentClient;
let client: PairStateServiceClient;
let clock = Date.now();

before(async () => {
  controller = new Controller({
    config: testConfig({ agentTtl: 3_600_000 }),
    version: { version: "2.5.0", commit: "test" },
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
    now: () => clock,
  });
  await controller.start();
  raw = new RawAgentClient(controller.grpcPort);
  for (const [i, n] of ["a", "b", "c"].entries())
    await raw.register(
      registerRequest({
        node_name: n,
        agent_id: `id-${n}`,
        advertise_address: `198.18.0.${i + 1}`,
        version: "2.5.0",
      }),
    );
  client = createPairStateServiceClient(`127.0.0.1:${controller.grpcPort}`);
});

after(async () => {
  client?.close();
  raw?.close();
  await controller?.stop();
});

function report(req: Partial<ReportPairStateRequest>): Promise<ReportPairStateResponse> {
  const full: ReportPairStateRequest = {
    agent_id: "id-a",
    seq: 1,
    full: false,
    problems: [],
    cleared: [],
    ...req,
  };
  return new Promise((resolve, reject) =>
    client.ReportPairState(full, { deadline: Date.now() + 5000 }, (err, res) =>
      err || !res ? reject(err) : resolve(res),
    ),
  );
}

async function states(): Promise<PairStatesBody> {
  const res = await fetch(`http://127.0.0.1:${controller.httpPort}/api/v1/pair-states`);
  assert.equal(res.status, 200);
  return (await res.json()) as PairStatesBody;
}

const listed = (b: PairStatesBody) =>
  b.problems.map((p) => `${p.source}->${p.destination} ${p.plane} ${p.ratio}`).sort();

async function refused(p: Promise<unknown>, code: grpc.status, message: RegExp): Promise<void> {
  const err = (await p.then(
    () => assert.fail("accepted"),
    (e: grpc.ServiceError) => e,
  )) as grpc.ServiceError;
  assert.equal(err.code, code, `${grpc.status[err.code]} ${err.details}`);
  assert.match(err.details, message);
}

test("a full report, then changes on top of it; a gap in the numbers asks for a full report", async () => {
  assert.deepEqual(await states(), { sources: [], problems: [] });
  const full = await report({
    seq: 7,
    full: true,
    problems: [
      { destination_node: "b", plane: "tcp", ratio: 1 },
      { destination_node: "c", plane: "udp", ratio: 0.4 },
    ],
  });
  assert.equal(full.need_full, false);
  assert.deepEqual((await states()).sources, ["a"]);
  assert.deepEqual(listed(await states()), ["a->b tcp 1", "a->c udp 0.4"]);
  const delta = await report({
    seq: 8,
    problems: [{ destination_node: "c", plane: "pmtu", ratio: 1 }],
    cleared: [{ destination_node: "b", plane: "tcp", ratio: 0 }],
  });
  assert.equal(delta.need_full, false);
  assert.deepEqual(listed(await states()), ["a->c pmtu 1", "a->c udp 0.4"]);
  // report 10 without 9: not applied
  const gap = await report({ seq: 10, cleared: [{ destination_node: "c", plane: "udp", ratio: 0 }] });
  assert.equal(gap.need_full, true);
  assert.deepEqual(listed(await states()), ["a->c pmtu 1", "a->c udp 0.4"]);
  // another agent's first change report (no full one yet) is not applied either
  assert.equal(
    (
      await report({
        agent_id: "id-b",
        seq: 1,
        problems: [{ destination_node: "a", plane: "tcp", ratio: 1 }],
      })
    ).need_full,
    true,
  );
  assert.deepEqual((await states()).sources, ["a"]);
});

test("a report that cannot be a pair state is refused whole; unknown destinations are not kept", async () => {
  const before = listed(await states());
  await refused(
    report({
      seq: 1,
      full: true,
      problems: [
        { destination_node: "b", plane: "tcp", ratio: 1 },
        { destination_node: "c", plane: "dns", ratio: 1 },
      ],
    }),
    grpc.status.INVALID_ARGUMENT,
    /problems\[1\]\.plane: one of tcp, udp, icmp, pmtu, got "dns"/,
  );
  for (const ratio of [0, 1.5, Number.NaN, -1])
    await refused(
      report({ seq: 1, full: true, problems: [{ destination_node: "b", plane: "tcp", ratio }] }),
      grpc.status.INVALID_ARGUMENT,
      /ratio: a number in \(0, 1\]/,
    );
  await refused(
    report({ seq: 1, full: true, problems: [{ destination_node: "a", plane: "tcp", ratio: 1 }] }),
    grpc.status.INVALID_ARGUMENT,
    /destination_node: another node's name, got "a"/,
  );
  assert.deepEqual(listed(await states()), before, "nothing changed");
  await refused(report({ agent_id: "ghost", seq: 1, full: true }), grpc.status.NOT_FOUND, /not registered/);
  await refused(report({ agent_id: "" }), grpc.status.INVALID_ARGUMENT, /agent_id: required/);
  await report({
    agent_id: "id-c",
    seq: 1,
    full: true,
    problems: [
      { destination_node: "a", plane: "icmp", ratio: 1 },
      { destination_node: "not-in-the-fleet", plane: "icmp", ratio: 1 },
    ],
  });
  assert.deepEqual(
    listed(await states()).filter((l) => l.startsWith("c->")),
    ["c->a icmp 1"],
  );
});

test("a source silent for 30 s drops out; a deregistered agent's state is gone", async () => {
  await report({
    agent_id: "id-b",
    seq: 1,
    full: true,
    problems: [{ destination_node: "c", plane: "tcp", ratio: 0.5 }],
  });
  assert.deepEqual((await states()).sources.sort(), ["a", "b", "c"]);
  clock += PAIR_STATE_STALE_MS - 1000;
  await report({ agent_id: "id-b", seq: 2 }); // a keepalive
  clock += 2000;
  assert.deepEqual((await states()).sources, ["b"], "a and c last reported over 30 s ago");
  await raw.deregister("id-b");
  assert.deepEqual(await states(), { sources: [], problems: [] });
});
