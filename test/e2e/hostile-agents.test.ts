/**
 * Hostile-agent suite (issue 33): each attack of the issue, tried over gRPC against a controller serving three
 * real agents (processes on loopback, probing each other every second), from another source address than theirs:
 * the controller listens dual-stack on `::`, the agents dial 127.0.0.1, the attacker dials [::1]. Outside
 * Kubernetes the source address is a caller's identity, so the attacker is another caller (the token attacks of
 * Kubernetes mode are in apps/controller/src/grpc/kubernetes-identity.test.ts). Every attack must be refused with
 * its status, and afterwards each real agent's entry (address, zone, labels) is as before and every pair's probe
 * series kept growing through the attacks.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  Controller,
  RawAgentClient,
  type RegisteredAgent,
  registerRequest,
  testConfig,
} from "@svc/controller";
import {
  createExternalCheckServiceClient,
  createPairStateServiceClient,
  createTaskServiceClient,
  grpc,
  type RegisterRequest,
} from "@svc/protocol";
import { eventually } from "../helpers/env.ts";
import { meshKeys, resultCounters } from "../helpers/probe-series.ts";
import { AgentProc } from "../helpers/svc-process.ts";

const NAMES = ["node-1", "node-2", "node-3"];
let dir: string;
let controller: Controller;
/** the same rules with the source-address rule out of the way (loopback trusted): only the address rules judge */
let addressOnly: Controller;
const agents: AgentProc[] = [];
const clients: { close(): void }[] = [];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-hostile-agents-"));
  controller = new Controller({
    config: testConfig({ trustedProxyCidrs: [] }),
    version: { version: "2.5.0", commit: "test" },
    grpcHost: "::",
    httpHost: "127.0.0.1",
    allowLoopbackAgents: true,
    // not this host's interfaces: a lab running beside the suite may own 198.18.3.0/24, and then the broadcast
    // rule would answer before the source rule this controller is here to show
    knownPrefixes: [],
  });
  await controller.start();
  addressOnly = new Controller({
    config: testConfig({ trustedProxyCidrs: ["::1/128", "127.0.0.0/8"] }),
    version: { version: "2.5.0", commit: "test" },
    grpcHost: "::",
    httpHost: "127.0.0.1",
    knownPrefixes: ["198.18.3.0/24"],
  });
  await addressOnly.start();
  for (const n of NAMES) agents.push(await AgentProc.start(dir, n, controller.grpcPort));
  await eventually(
    "agents registered",
    async () => (controller.registry.size === NAMES.length ? true : undefined),
    30_000,
    100,
  );
});

after(async () => {
  for (const c of clients) c.close();
  for (const a of agents) await a.stop();
  await controller?.stop();
  await addressOnly?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function attacker(port = controller.grpcPort): RawAgentClient {
  const c = new RawAgentClient(port, { host: "[::1]" });
  clients.push(c);
  return c;
}

async function refused(
  what: string,
  p: Promise<unknown>,
  code: grpc.status,
  message?: RegExp,
): Promise<void> {
  const err = (await p.then(
    () => assert.fail(`${what}: accepted`),
    (e: grpc.ServiceError) => e,
  )) as grpc.ServiceError;
  assert.equal(err.code, code, `${what}: ${grpc.status[err.code]} ${err.details}`);
  if (message) assert.match(err.details, message, what);
}

/** A server stream's failure status (or a timeout when it stays open). */
function streamStatus(call: grpc.ClientReadableStream<unknown>): Promise<grpc.ServiceError> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("stream stayed open")), 5000);
    call.on("data", () => {});
    call.on("error", (e: grpc.ServiceError) => {
      clearTimeout(timer);
      resolve(e);
    });
  });
}

/** Result counters per `protocol source->destination`, all agents. */
async function counters(): Promise<Map<string, number>> {
  const all = await Promise.all(agents.map((a) => resultCounters(a.metricsUrl)));
  return new Map(all.flatMap((m) => [...m]));
}

const entry = (a: RegisteredAgent | undefined) =>
  a && { id: a.id, address: a.address, zone: a.zone, labels: { ...a.labels }, nodeName: a.nodeName };

test("every attack of issue 33 is refused, and the real agents' entries and probe series are untouched", async () => {
  const expected = meshKeys(NAMES);
  await eventually(
    "every pair measured",
    async () => {
      const c = await counters();
      return expected.every((k) => (c.get(k) ?? 0) > 0) ? true : undefined;
    },
    30_000,
  );
  const victim = controller.registry.agentOnNode("node-2");
  assert.ok(victim);
  const id = victim.id;
  const before = NAMES.map((n) => entry(controller.registry.agentOnNode(n)));
  const countersBefore = await counters();
  const x = attacker();
  const reg = (over: Partial<RegisterRequest>) =>
    x.register(registerRequest({ node_name: "node-2", agent_id: id, advertise_address: "::1", ...over }));
  const D = grpc.status.PERMISSION_DENIED;

  // takeover by id: with a foreign address, with the attacker's own address, under another node name
  await refused(
    "takeover by id, foreign address",
    reg({ advertise_address: "198.18.3.99", zone: "evil" }),
    D,
  );
  await refused("takeover by id, own address", reg({ zone: "evil" }), D, /registered by another caller/);
  await refused(
    "takeover by id, other node name",
    reg({ node_name: "node-9" }),
    D,
    /registered by another caller/,
  );
  // a forged entry for the victim's node under a new id: the node is held by a live agent elsewhere
  await refused("forged entry for node-2", reg({ agent_id: "forged" }), grpc.status.ALREADY_EXISTS);
  // forged heartbeats and Deregister of another's id
  await refused("heartbeat for another's id", x.heartbeat(id), D);
  await refused("deregister another's id", x.deregister(id), D);
  // pair states reported under another's id (the console would paint the victim's pairs as the attacker says)
  const states = createPairStateServiceClient(
    `[::1]:${controller.grpcPort}`,
    grpc.credentials.createInsecure(),
  );
  clients.push(states);
  await refused(
    "pair state under another's id",
    new Promise((resolve, reject) =>
      states.ReportPairState(
        {
          agent_id: id,
          seq: 1,
          full: true,
          problems: [{ destination_node: "node-1", plane: "tcp", ratio: 1 }],
          cleared: [],
        },
        { deadline: Date.now() + 5000 },
        (err, res) => (err ? reject(err) : resolve(res)),
      ),
    ),
    D,
  );
  // streams under another's id: peers, tasks, external checks
  const peers = x.watch(id);
  await assert.rejects(peers.waitFor(() => true, 3000));
  assert.equal(peers.error()?.code, D, "WatchPeers under another's id");
  const tasks = createTaskServiceClient(`[::1]:${controller.grpcPort}`, grpc.credentials.createInsecure());
  const external = createExternalCheckServiceClient(
    `[::1]:${controller.grpcPort}`,
    grpc.credentials.createInsecure(),
  );
  clients.push(tasks, external);
  assert.equal(
    (await streamStatus(tasks.WatchTasks({ agent_id: id }))).code,
    D,
    "WatchTasks under another's id",
  );
  assert.equal(
    (await streamStatus(external.WatchExternalChecks({ agent_id: id }))).code,
    D,
    "WatchExternalChecks under another's id",
  );
  // addresses the fleet would probe for the attacker, each under a fresh node name
  const addresses = [
    "8.8.8.8",
    "10.0.0.1",
    victim.address, // another agent's address
    "198.18.3.255", // a directed broadcast
    "::127.0.0.1",
    "::ffff:0:127.0.0.1",
    "64:ff9b::127.0.0.1",
    "2002:7f00:1::",
  ];
  for (const [i, address] of addresses.entries()) {
    await refused(
      `advertise ${address}`,
      x.register(registerRequest({ node_name: `evil-${i}`, advertise_address: address })),
      D,
      /is not the address this connection comes from/,
    );
  }
  // the same addresses where the source rule does not apply (a trusted proxy): the address rules refuse them
  const y = attacker(addressOnly.grpcPort);
  const reasons: [string, RegExp][] = [
    ["198.18.3.255", /broadcast/],
    ["255.255.255.255", /broadcast/],
    ["::127.0.0.1", /loopback/],
    ["::ffff:0:127.0.0.1", /loopback/],
    ["64:ff9b::127.0.0.1", /loopback/],
    ["2002:7f00:1::", /loopback/],
    ["127.0.0.1", /loopback/],
    ["::ffff:127.0.0.1", /loopback/],
    ["::1", /loopback/],
  ];
  for (const [address, why] of reasons)
    await refused(
      `advertise ${address} (address rules)`,
      y.register(registerRequest({ node_name: "evil", advertise_address: address })),
      grpc.status.INVALID_ARGUMENT,
      why,
    );
  assert.equal(addressOnly.registry.size, 0);

  // nothing changed: the real agents' entries, no forged agent, and every pair kept being measured
  assert.deepEqual(
    NAMES.map((n) => entry(controller.registry.agentOnNode(n))),
    before,
  );
  assert.equal(
    controller.registry.size,
    NAMES.length,
    controller.registry
      .list()
      .map((a) => a.nodeName)
      .join(),
  );
  // the agents report their pair states themselves; the forged report left none for node-2
  await eventually(
    "the three agents report their pair states, all fine",
    async () => {
      const b = controller.pairStates.body();
      return b.sources.length === NAMES.length ? b : undefined;
    },
    20_000,
  );
  assert.deepEqual(controller.pairStates.body().problems, []);
  await eventually(
    "every pair measured again since the attacks began",
    async () => {
      const c = await counters();
      return expected.every((k) => (c.get(k) ?? 0) > (countersBefore.get(k) ?? 0) + 2) ? true : undefined;
    },
    20_000,
  );
  peers.cancel();
});
