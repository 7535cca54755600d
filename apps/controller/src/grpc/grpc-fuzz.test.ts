/**
 * Property-based fuzzing of every RPC of svc.proto against a real controller on 127.0.0.1 (one controller, one
 * connection, raw bytes sent with identity serializers: testing/grpc-fuzz-inputs.ts). The RPCs are enumerated
 * from the generated service definitions (and checked against the .proto), so a new RPC without a generator
 * fails the suite. Fixed seed, FUZZ_RUNS cases per RPC. Invariants, per call:
 * - it ends with a status within the deadline (streams are cancelled once open: first message or headers);
 * - never INTERNAL or UNKNOWN; status details at most 512 bytes;
 * - bytes that do not decode are refused (INVALID_ARGUMENT), a message over 4 MiB with RESOURCE_EXHAUSTED;
 * - OK (or an open stream) only for input the RPC accepts, with the RPC's own answer for decodable input;
 * - a refused call changes nothing in the registry.
 * After the run a well-formed Register and Heartbeat still work.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { grpc, proto } from "@svc/protocol";
import fc from "fast-check";
import { Controller } from "../controller.ts";
import { validateRegistration } from "../registry/validate.ts";
import {
  type GrpcCase,
  KNOWN_IDS,
  MAX_RECEIVE_BYTES,
  REQUEST_SCHEMAS,
  requestBytesArb,
} from "../testing/grpc-fuzz-inputs.ts";
import { RawAgentClient, registerRequest } from "../testing/raw-client.ts";
import { testConfig } from "../testing/test-config.ts";
import { MESSAGE_MAX_BYTES } from "./echo.ts";

const SEED = 18;
const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
/** Per-call deadline: a call still open after it is a hang. */
const CALL_DEADLINE_MS = 10_000;
/**
 * Streams cancelled on one connection before it is replaced. The server's HTTP/2 layer (nghttp2's rapid-reset
 * guard: a burst of 1,000 RST_STREAM, then 33 a second) ends a connection that cancels streams faster than that
 * with INTERNAL_ERROR, which is the controller defending itself, not a fault of the RPC under test.
 */
const CANCELS_PER_CONNECTION = 200;

interface MethodDef {
  path: string;
  requestStream: boolean;
  responseStream: boolean;
  requestDeserialize: (bytes: Buffer) => unknown;
  responseDeserialize: (bytes: Buffer) => unknown;
}

/** Every RPC of the generated code: the `<Name>Service` definitions of the proto namespace. */
function generatedMethods(): MethodDef[] {
  const out: MethodDef[] = [];
  for (const [name, value] of Object.entries(proto)) {
    if (!name.endsWith("Service") || typeof value !== "object" || value === null) continue;
    const methods = Object.values(value as Record<string, unknown>);
    if (methods.length === 0 || !methods.every((m) => typeof (m as MethodDef)?.path === "string")) continue;
    out.push(...(methods as MethodDef[]));
  }
  return out;
}

/** `/svc.v1.Service/Method` for every `rpc` of svc.proto. */
function protoRpcPaths(): string[] {
  const text = readFileSync(
    new URL("../../../../packages/protocol/proto/svc.proto", import.meta.url),
    "utf8",
  );
  const pkg = /^package\s+([\w.]+);/m.exec(text)?.[1] ?? "";
  const out: string[] = [];
  for (const svc of text.matchAll(/service\s+(\w+)\s*\{([^}]*)\}/g)) {
    for (const rpc of (svc[2] ?? "").matchAll(/rpc\s+(\w+)\s*\(/g)) out.push(`/${pkg}.${svc[1]}/${rpc[1]}`);
  }
  return out.sort();
}

/** How a call ended. */
interface Outcome {
  code: grpc.status;
  details: string;
  /** a stream that sent headers or a message before it was cancelled */
  opened: boolean;
  response?: Buffer;
}

type Req = Record<string, unknown>;
/** The registry as comparable text (timestamps left out: heartbeats move them). */
type Snapshot = string;

interface RpcSpec {
  request: keyof typeof REQUEST_SCHEMAS;
  /** well-formed requests, encoded by the generated code */
  valid: fc.Arbitrary<Buffer>;
  /** the RPC's rule for decodable input: throws when `out` breaks it */
  check(req: Req, out: Outcome, ctx: { before: Snapshot; knownBefore: boolean }): void;
}

const S = grpc.status;
const idArb = fc.oneof(
  fc.constantFrom(...KNOWN_IDS, "fz-id-1", "unknown-id"),
  fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/),
);
const enc = <T>(codec: { encode(m: T): { finish(): Uint8Array } }, m: T): Buffer =>
  Buffer.from(codec.encode(m).finish());

function expectCode(out: Outcome, ...codes: grpc.status[]): void {
  assert.ok(
    codes.includes(out.code),
    `status ${S[out.code]} (${out.details}), want ${codes.map((c) => S[c]).join("|")}`,
  );
}

function expectOpen(out: Outcome): void {
  assert.ok(out.opened, `stream not opened: ${S[out.code]} ${out.details}`);
}

const GENERATORS: Record<string, RpcSpec> = {
  "/svc.v1.AgentService/Register": {
    request: "RegisterRequest",
    valid: fc
      .record({
        node_name: fc.constantFrom("fz-node-1", "fz-node-2", "fz-node-3", "node-a"),
        agent_id: fc.constantFrom("", "fz-id-1", "fz-id-2"),
        advertise_address: fc.constantFrom("198.18.0.40", "198.18.0.41", "fd00::7"),
        zone: fc.constantFrom("", "zone-a"),
        http_port: fc.integer({ min: 0, max: 65_535 }),
        labels: fc.constantFrom<Record<string, string>>({}, { "svc.io/external": "true" }, { a: "b" }),
        capabilities: fc.constantFrom<string[]>([], ["plane:tcp", "external-checks"]),
      })
      .map((r) => enc(proto.RegisterRequest, registerRequest(r))),
    check(req, out, { before }) {
      const v = validateRegistration(req as unknown as proto.RegisterRequest, { allowLoopback: false });
      if (!v.ok) {
        expectCode(out, S.INVALID_ARGUMENT);
        assert.ok(out.details.startsWith(`${v.field}:`), `details ${out.details} should name ${v.field}`);
      } else expectCode(out, S.OK, S.ALREADY_EXISTS);
      if (out.code === S.OK) {
        const res = proto.RegisterResponse.decode(out.response ?? Buffer.alloc(0));
        assert.equal(controller.registry.get(res.agent_id)?.nodeName, v.ok ? v.value.nodeName : undefined);
      } else assert.equal(registrySnapshot(), before, "a refused Register changed the registry");
    },
  },
  "/svc.v1.AgentService/Heartbeat": {
    request: "HeartbeatRequest",
    valid: idArb.map((agent_id) => enc(proto.HeartbeatRequest, { agent_id })),
    check(_req, out, { before, knownBefore }) {
      expectCode(out, S.OK);
      assert.equal(proto.HeartbeatResponse.decode(out.response ?? Buffer.alloc(0)).known, knownBefore);
      assert.equal(registrySnapshot(), before, "a Heartbeat changed the registry");
    },
  },
  "/svc.v1.AgentService/Deregister": {
    request: "DeregisterRequest",
    valid: idArb.map((agent_id) => enc(proto.DeregisterRequest, { agent_id })),
    check(req, out) {
      expectCode(out, S.OK);
      assert.equal(
        controller.registry.get(String(req.agent_id)),
        undefined,
        "still registered after Deregister",
      );
    },
  },
  "/svc.v1.AgentService/WatchPeers": {
    request: "WatchPeersRequest",
    valid: fc
      .tuple(idArb, fc.boolean())
      .map(([agent_id, incremental]) => enc(proto.WatchPeersRequest, { agent_id, incremental })),
    check(_req, out, { before }) {
      expectOpen(out);
      assert.equal(registrySnapshot(), before, "a peer watch changed the registry");
    },
  },
  "/svc.v1.TaskService/WatchTasks": {
    request: "WatchTasksRequest",
    valid: idArb.map((agent_id) => enc(proto.WatchTasksRequest, { agent_id })),
    check(req, out) {
      if (req.agent_id === "") expectCode(out, S.INVALID_ARGUMENT);
      else expectOpen(out);
    },
  },
  "/svc.v1.TaskService/ReportTaskResult": {
    request: "TaskResult",
    valid: fc
      .record({ agent_id: idArb, task_id: fc.uuid(), success: fc.boolean(), duration_ns: fc.nat() })
      .map((r) => enc(proto.TaskResult, proto.TaskResult.fromPartial(r))),
    check(_req, out) {
      // no task is pending during the run: every report names an unknown task
      expectCode(out, S.NOT_FOUND);
    },
  },
  "/svc.v1.ExternalCheckService/WatchExternalChecks": {
    request: "WatchExternalChecksRequest",
    valid: idArb.map((agent_id) => enc(proto.WatchExternalChecksRequest, { agent_id })),
    check(req, out) {
      if (req.agent_id === "") expectCode(out, S.INVALID_ARGUMENT);
      else expectOpen(out);
    },
  },
  "/svc.v1.PairStateService/ReportPairState": {
    request: "ReportPairStateRequest",
    valid: fc
      .record({
        agent_id: idArb,
        seq: fc.nat(),
        full: fc.boolean(),
        problems: fc.array(
          fc.record({
            destination_node: fc.constantFrom("fz-a-node", "fz-b-node", "unknown-node"),
            plane: fc.constantFrom("tcp", "udp", "icmp", "pmtu"),
            ratio: fc.constantFrom(0.2, 0.5, 1),
          }),
          { maxLength: 4 },
        ),
      })
      .map((r) => enc(proto.ReportPairStateRequest, proto.ReportPairStateRequest.fromPartial(r))),
    check(req, out, { before }) {
      const id = String(req.agent_id ?? "").trim();
      if (out.code !== S.OK) assert.equal(registrySnapshot(), before, "a refused report changed something");
      if (id === "") expectCode(out, S.INVALID_ARGUMENT);
      else if (controller.registry.get(id) === undefined) expectCode(out, S.NOT_FOUND);
      else {
        expectCode(out, S.OK, S.INVALID_ARGUMENT);
        if (out.code === S.INVALID_ARGUMENT) assert.match(out.details, /^(problems|cleared)\[\d+\]\./);
      }
    },
  },
  "/svc.v1.EventService/Subscribe": {
    request: "SubscribeEventsRequest",
    valid: fc
      .dictionary(fc.constantFrom("topology", "checks", "mtr", "diagnostics", "other"), fc.nat(), {
        maxKeys: 4,
      })
      .map((after) => enc(proto.SubscribeEventsRequest, { after })),
    check(_req, out) {
      expectOpen(out);
    },
  },
};

let controller: Controller;
let client: grpc.Client;
let cancelsOnClient = 0;
let raw: RawAgentClient;
const identity = (b: Buffer): Buffer => b;

before(async () => {
  controller = new Controller({
    // a TTL far beyond the run: registrations must not expire between a case's before and after
    config: testConfig({ agentTtl: 3_600_000, eventsEnabled: true }),
    version: { version: "2.5.0", commit: "fuzz" },
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
    peerDebounceMs: 5,
  });
  await controller.start();
  client = newClient();
  raw = new RawAgentClient(controller.grpcPort);
});

after(async () => {
  client?.close();
  raw?.close();
  await controller?.stop();
});

/** A client on a connection of its own (no subchannel shared with earlier clients). */
function newClient(): grpc.Client {
  return new grpc.Client(`127.0.0.1:${controller.grpcPort}`, grpc.credentials.createInsecure(), {
    "grpc.use_local_subchannel_pool": 1,
  });
}

/** The client for the next stream: a fresh connection once this one has cancelled its share of streams. */
function streamClient(): grpc.Client {
  if (++cancelsOnClient > CANCELS_PER_CONNECTION) {
    client.close();
    client = newClient();
    cancelsOnClient = 1;
  }
  return client;
}

function registrySnapshot(): Snapshot {
  const agents = controller.registry
    .list()
    .map(({ registeredAt: _r, lastSeen: _l, ...rest }) => rest)
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  // and the pair states the agents reported (a refused call changes them neither)
  return JSON.stringify([agents, controller.pairStates.dump()]);
}

/** The baseline agents some generated ids name. */
async function registerBaseline(): Promise<void> {
  for (const [i, id] of KNOWN_IDS.entries()) {
    await raw.register(
      registerRequest({ node_name: `${id}-node`, agent_id: id, advertise_address: `198.18.0.${i + 1}` }),
    );
  }
}

function unary(path: string, bytes: Buffer): Promise<Outcome> {
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      path,
      identity,
      identity,
      bytes,
      new grpc.Metadata(),
      { deadline: Date.now() + CALL_DEADLINE_MS },
      (err: grpc.ServiceError | null, res?: Buffer) =>
        resolve(
          err
            ? { code: err.code, details: err.details, opened: false }
            : { code: S.OK, details: "", opened: false, response: res },
        ),
    );
  });
}

/** A server stream, cancelled as soon as it is open (headers or a first message). */
function stream(path: string, bytes: Buffer): Promise<Outcome> {
  return new Promise((resolve) => {
    const call = streamClient().makeServerStreamRequest(
      path,
      identity,
      identity,
      bytes,
      new grpc.Metadata(),
      {
        deadline: Date.now() + CALL_DEADLINE_MS,
      },
    );
    let opened = false;
    const open = (): void => {
      if (opened) return;
      opened = true;
      call.cancel();
    };
    call.on("metadata", open);
    call.on("data", open);
    call.on("error", () => {});
    call.on("status", (s: grpc.StatusObject) => resolve({ code: s.code, details: s.details, opened }));
  });
}

const methods = generatedMethods();

test("every RPC of svc.proto is generated, served and has a fuzz generator", () => {
  const paths = methods.map((m) => m.path).sort();
  assert.deepEqual(paths, protoRpcPaths());
  for (const p of paths) assert.ok(GENERATORS[p], `${p}: no fuzz generator in grpc-fuzz.test.ts`);
  assert.deepEqual(Object.keys(GENERATORS).sort(), paths);
});

for (const m of methods) {
  test(`fuzz ${m.path}`, async () => {
    const spec = GENERATORS[m.path];
    assert.ok(spec, `${m.path}: no fuzz generator`);
    await registerBaseline();
    const counts: Record<string, number> = {};
    await fc.assert(
      fc.asyncProperty(requestBytesArb(REQUEST_SCHEMAS[spec.request], spec.valid), async (c: GrpcCase) => {
        let req: Req | undefined;
        try {
          req = m.requestDeserialize(c.bytes) as Req;
        } catch {
          req = undefined;
        }
        const oversized = c.bytes.length > MAX_RECEIVE_BYTES;
        if (oversized) req = undefined;
        const before = registrySnapshot();
        const knownBefore =
          req !== undefined && controller.registry.get(String(req.agent_id ?? "")) !== undefined;
        const out = m.responseStream ? await stream(m.path, c.bytes) : await unary(m.path, c.bytes);
        const what = `${m.path} ${c.kind} ${c.bytes.length} B ${c.bytes.subarray(0, 80).toString("hex")} -> ${S[out.code]} ${out.details.slice(0, 200)}`;
        const key = `${req === undefined ? "refused-undecodable" : "decoded"}:${out.opened ? "open" : S[out.code]}`;
        counts[key] = (counts[key] ?? 0) + 1;
        assert.notEqual(out.code, S.DEADLINE_EXCEEDED, `no status within ${CALL_DEADLINE_MS} ms: ${what}`);
        assert.ok(out.code !== S.INTERNAL && out.code !== S.UNKNOWN, `internal error: ${what}`);
        assert.ok(
          Buffer.byteLength(out.details) <= MESSAGE_MAX_BYTES,
          `details over ${MESSAGE_MAX_BYTES} bytes: ${what}`,
        );
        if (req === undefined) {
          assert.ok(!out.opened && out.code !== S.OK, `undecodable input accepted: ${what}`);
          // over the limit: RESOURCE_EXHAUSTED, or the stream reset while the client still sends (UNAVAILABLE)
          if (oversized) expectCode(out, S.RESOURCE_EXHAUSTED, S.UNAVAILABLE);
          else expectCode(out, S.INVALID_ARGUMENT);
          assert.equal(registrySnapshot(), before, `refused but the registry changed: ${what}`);
          return;
        }
        try {
          spec.check(req, out, { before, knownBefore });
        } catch (err) {
          throw new Error(`${(err as Error).message}: ${what}`);
        }
      }),
      { seed: SEED, numRuns: FUZZ_RUNS, endOnFailure: true, includeErrorInReport: true },
    );
    console.log(m.path, JSON.stringify(counts));
  });
}

test("the controller keeps serving after the run: Register and Heartbeat", async () => {
  const res = await raw.register(
    registerRequest({
      node_name: "after-fuzz",
      agent_id: "after-fuzz",
      advertise_address: "198.18.0.99",
      http_port: 8080,
    }),
  );
  assert.equal(res.agent_id, "after-fuzz");
  assert.equal(await raw.heartbeat("after-fuzz"), true);
});
