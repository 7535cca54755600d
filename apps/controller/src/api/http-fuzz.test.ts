/**
 * Property-based fuzzing of every controller HTTP route, on the API listener and the metrics listener of one real
 * controller on 127.0.0.1 (keep-alive connection, testing/http-fuzz-inputs.ts). Routes are enumerated from the
 * Fastify instances (Controller.httpRoutes), and each must have its documented answers below (spec §4.2, §7,
 * §8.1), so a new route without them fails the suite. Fixed seed, FUZZ_RUNS cases per route. Invariants:
 * - an answer within the deadline, never a 5xx other than the route's documented ones (diagnostics: 502, 504);
 * - a status the route documents; another method or path is 404 (405 `Allow: GET` on the discovery route);
 * - bodies: over the route's limit 413, malformed or nested deeper than 64 levels 400, refused by the route's
 *   rules 400; accepted diagnostics answer 200/404/501/502/504, accepted external-checks 200 with the new state;
 * - error bodies in the route's style: diagnostics one line of text/plain, external-checks `{"error": reason}`,
 *   the others `{"error": {"code", "message"}}`;
 * - nothing changes on refusal (registry, external-check assignments); the registry never changes over HTTP.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, test } from "node:test";
import { createTaskServiceClient, type grpc, type TaskMessage, type TaskServiceClient } from "@svc/protocol";
import fc from "fast-check";
import { Controller } from "../controller.ts";
import { parseDiagnosticBody } from "../diagnostics/request.ts";
import { validateExternalChecksBody } from "../external/validate-body.ts";
import { type BodyKind, bodyText, type HttpCase, requestArb } from "../testing/http-fuzz-inputs.ts";
import { RawAgentClient, registerRequest } from "../testing/raw-client.ts";
import { testConfig } from "../testing/test-config.ts";
import { waitUntil } from "../testing/wait-until.ts";
import { CONTROL_CLASS } from "./error-handler.ts";
import type { HttpRoute } from "./http-api.ts";
import { DEFAULT_BODY_LIMIT, jsonDepthExceeds, MAX_JSON_DEPTH } from "./json-body.ts";

const SEED = 18;
const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
/** Per-request deadline: a request still unanswered after it is a hang. */
const REQUEST_DEADLINE_MS = 20_000;

type ErrorStyle = "json" | "text" | "reason";

/** What a route documents (spec §4.2, §7, §8.1; decisions.md "Controller"). */
interface Documented {
  statuses: readonly number[];
  /** error body style (api/error-handler.ts `config.errorBody`) */
  style: ErrorStyle;
  body: BodyKind;
  /** body limit in bytes (routes with a body) */
  limit?: number;
}

const DOCUMENTED: Record<string, Documented> = {
  "/healthz": { statuses: [200], style: "json", body: "none" },
  "/readyz": { statuses: [200], style: "json", body: "none" },
  "/readyz/leader": { statuses: [200], style: "json", body: "none" },
  "/metrics": { statuses: [200], style: "json", body: "none" },
  "/api/v1/topology": { statuses: [200], style: "json", body: "none" },
  "/api/v1/version": { statuses: [200], style: "json", body: "none" },
  "/api/v1/pair-states": { statuses: [200], style: "json", body: "none" },
  "/api/v1/scrape/sd": { statuses: [200, 405], style: "json", body: "none" },
  "/api/v1/diagnostics": {
    statuses: [200, 400, 404, 413, 501, 502, 504],
    style: "text",
    body: "diagnostics",
    limit: 64 * 1024,
  },
  "/api/v1/external-checks": {
    statuses: [200, 400, 413],
    style: "reason",
    body: "external-checks",
    limit: 8 * 1024 * 1024,
  },
};

let controller: Controller;
let raw: RawAgentClient;
let tasks: TaskServiceClient;
let taskStream: grpc.ClientReadableStream<TaskMessage> | undefined;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

before(async () => {
  controller = new Controller({
    config: testConfig({ agentTtl: 3_600_000, eventsEnabled: true }),
    version: { version: "2.5.0", commit: "fuzz" },
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
    peerDebounceMs: 5,
  });
  await controller.start();
  raw = new RawAgentClient(controller.grpcPort);
  const planes = ["tcp", "udp", "icmp", "pmtu", "dns", "http", "mtr"].map((p) => `plane:${p}`);
  await raw.register(
    registerRequest({
      node_name: "node-a",
      agent_id: "fz-a",
      advertise_address: "198.18.0.1",
      capabilities: [...planes, "external-checks"],
      version: "2.5.0",
    }),
  );
  await raw.register(
    registerRequest({
      node_name: "node-b",
      agent_id: "fz-b",
      advertise_address: "198.18.0.2",
      capabilities: ["plane:tcp"],
    }),
  );
  // node-a's agent answers every task at once (diagnostics from node-a reach a 200); node-b has no task stream
  tasks = createTaskServiceClient(`127.0.0.1:${controller.grpcPort}`);
  const stream = tasks.WatchTasks({ agent_id: "fz-a" });
  taskStream = stream;
  stream.on("error", () => {});
  stream.on("data", (t: TaskMessage) => {
    tasks.ReportTaskResult(
      {
        agent_id: "fz-a",
        task_id: t.task_id,
        success: true,
        error: "",
        duration_ns: 1_000_000,
        details_json: "",
        timestamp_unix_ns: 0,
      },
      { deadline: Date.now() + 5000 },
      () => {},
    );
  });
  await waitUntil(() => controller.tasks.hasStream("fz-a"), "node-a's task stream");
});

after(async () => {
  taskStream?.cancel();
  tasks?.close();
  raw?.close();
  agent.destroy();
  await controller?.stop();
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function send(port: number, c: HttpCase): Promise<Answer> {
  const text = bodyText(c);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = {};
    if (c.contentType !== undefined) headers["content-type"] = c.contentType;
    if (text !== undefined) headers["content-length"] = Buffer.byteLength(text);
    const req = http.request(
      { host: "127.0.0.1", port, method: c.method, path: c.url, headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (d: Buffer) => chunks.push(d));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
        res.on("error", reject);
      },
    );
    req.setTimeout(REQUEST_DEADLINE_MS, () =>
      req.destroy(new Error(`no answer within ${REQUEST_DEADLINE_MS} ms`)),
    );
    req.on("error", reject);
    req.end(text);
  });
}

/** The answer the route's body rules give `text` (as the server reads it), or "accepted" when they accept it. */
function bodyVerdict(doc: Documented, sent: string | undefined): number | "accepted" {
  const text = sent === undefined ? "" : Buffer.from(sent).toString();
  if (Buffer.byteLength(text) > (doc.limit ?? Number.POSITIVE_INFINITY)) return 413;
  if (text.trim() === "" || jsonDepthExceeds(text, MAX_JSON_DEPTH)) return 400;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 400;
  }
  if (doc.body === "diagnostics") return parseDiagnosticBody(value).ok ? "accepted" : 400;
  return validateExternalChecksBody(value).ok ? "accepted" : 400;
}

function registrySnapshot(): string {
  return JSON.stringify(
    controller.registry
      .list()
      .map(({ registeredAt: _r, lastSeen: _l, ...rest }) => rest)
      .sort((a, b) => (a.id < b.id ? -1 : 1)),
  );
}

function assignmentSnapshot(): string {
  const ids = controller.externalChecks.agentIds().sort();
  return JSON.stringify(ids.map((id) => [id, controller.externalChecks.specsOf(id)]));
}

/** The assignments a PUT of `text` leaves (spec §4.2: known ids, or ids already holding specs, with a non-empty list). */
function expectedAssignments(text: string, heldBefore: ReadonlySet<string>): string {
  const result = validateExternalChecksBody(JSON.parse(text));
  assert.ok(result.ok);
  const held = [...result.agents]
    .filter(
      ([id, specs]) => specs.length > 0 && (controller.registry.get(id) !== undefined || heldBefore.has(id)),
    )
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify(held);
}

/** What a one-line text body may not hold: line breaks and control characters but tab. */
const CONTROL = new RegExp(CONTROL_CLASS);

function checkErrorBody(style: ErrorStyle, a: Answer, what: string): void {
  const type = String(a.headers["content-type"] ?? "");
  if (style === "text") {
    assert.match(type, /^text\/plain/, `error not text/plain: ${what}`);
    assert.ok(a.body.length > 0, `empty error text: ${what}`);
    assert.ok(!CONTROL.test(a.body), `error text not one line (line break or control character): ${what}`);
    return;
  }
  assert.match(type, /^application\/json/, `error not JSON: ${what}`);
  const body = JSON.parse(a.body) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body), ["error"], `error body keys: ${what}`);
  if (style === "reason") {
    assert.equal(typeof body.error, "string", `error reason not a string: ${what}`);
    return;
  }
  const e = body.error as Record<string, unknown>;
  assert.ok(
    typeof e?.code === "string" && typeof e.message === "string",
    `error body not {code, message}: ${what}`,
  );
}

/** The routes of both listeners, grouped by path: path -> methods. */
function routesByPath(routes: readonly HttpRoute[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of routes) out.set(r.url, [...(out.get(r.url) ?? []), r.method]);
  return out;
}

const listeners = (): { name: string; port: number; routes: Map<string, string[]> }[] => [
  { name: "api", port: controller.httpPort, routes: routesByPath(controller.httpRoutes.api) },
  { name: "metrics", port: controller.metricsPort, routes: routesByPath(controller.httpRoutes.metrics) },
];

test("every route of both listeners is enumerated and has documented answers", () => {
  const paths = new Set(listeners().flatMap((l) => [...l.routes.keys()]));
  assert.ok(paths.has("/api/v1/diagnostics") && paths.has("/healthz"), "route enumeration found the routes");
  for (const p of paths) assert.ok(DOCUMENTED[p], `${p}: no documented answers in http-fuzz.test.ts`);
});

for (const listener of ["api", "metrics"] as const) {
  test(`fuzz every route on the ${listener} listener`, async (t) => {
    const l = listeners().find((x) => x.name === listener);
    assert.ok(l);
    for (const [path, methods] of l.routes) {
      await t.test(`${listener} ${methods.length > 2 ? "*" : methods.join("|")} ${path}`, async () => {
        const doc = DOCUMENTED[path];
        assert.ok(doc, `${path}: no documented answers`);
        const counts: Record<string, number> = {};
        const started = Date.now();
        await fc.assert(
          fc.asyncProperty(requestArb(path, methods, doc.body), async (c) => {
            const regBefore = registrySnapshot();
            const asgBefore = assignmentSnapshot();
            const heldBefore = new Set(controller.externalChecks.agentIds());
            const a = await send(l.port, c);
            const what = `${c.method} ${c.url.slice(0, 100)} [${c.contentType}] ${String(c.body).slice(0, 100)} -> ${a.status} ${a.body.slice(0, 200)}`;
            counts[a.status] = (counts[a.status] ?? 0) + 1;
            const routed = c.ownPath && methods.includes(c.method);
            if (!routed) {
              // Fastify reads a body before the not-found handler: over the default limit it is 413 first
              // (GET and HEAD bodies are never read); a QUERY needs a Content-Type before anything else (400)
              const reads = c.method !== "GET" && c.method !== "HEAD";
              const over = reads && Buffer.byteLength(bodyText(c) ?? "") > DEFAULT_BODY_LIMIT;
              const want = over ? 413 : c.method === "QUERY" && c.contentType === undefined ? 400 : 404;
              assert.equal(a.status, want, `not a route, want ${want}: ${what}`);
            } else {
              assert.ok(
                doc.statuses.includes(a.status),
                `status ${a.status} not documented for ${path}: ${what}`,
              );
              if (path === "/api/v1/scrape/sd") {
                assert.equal(a.status, c.method === "GET" ? 200 : 405, what);
                if (a.status === 405) assert.equal(a.headers.allow, "GET", what);
              }
              if (doc.body !== "none") {
                const text = bodyText(c);
                const verdict = bodyVerdict(doc, text);
                if (verdict !== "accepted")
                  assert.equal(a.status, verdict, `body rules say ${verdict}: ${what}`);
                else if (doc.body === "diagnostics")
                  assert.ok([200, 404, 501, 502, 504].includes(a.status), what);
                else {
                  assert.equal(a.status, 200, what);
                  assert.equal(
                    assignmentSnapshot(),
                    expectedAssignments(text ?? "", heldBefore),
                    `assignment: ${what}`,
                  );
                }
              }
            }
            if (a.status >= 400 && c.method !== "HEAD") checkErrorBody(routed ? doc.style : "json", a, what);
            assert.equal(registrySnapshot(), regBefore, `the registry changed: ${what}`);
            if (a.status !== 200 || path !== "/api/v1/external-checks")
              assert.equal(assignmentSnapshot(), asgBefore, `refused but the assignments changed: ${what}`);
          }),
          { seed: SEED, numRuns: FUZZ_RUNS, endOnFailure: true, includeErrorInReport: true },
        );
        console.log(`${listener} ${path} ${Date.now() - started} ms`, JSON.stringify(counts));
      });
    }
  });
}

test("the controller still serves after the run", async () => {
  const res = await fetch(`http://127.0.0.1:${controller.httpPort}/api/v1/topology`);
  assert.equal(res.status, 200);
  assert.equal(await raw.heartbeat("fz-a"), true);
});
