import type { ControllerVersion } from "@svc/protocol";
import Fastify, { type FastifyInstance } from "fastify";
import { NOT_LEADER } from "../errors.ts";
import type { ControllerMetrics } from "../metrics/controller-metrics.ts";
import { installErrorHandler, installNotFoundHandler, leaderOnly } from "./error-handler.ts";
import { installJsonBodyParser } from "./json-body.ts";

export interface HttpApiDeps {
  metrics: ControllerMetrics;
  /** true once the gRPC server is bound */
  ready: () => boolean;
  isLeader: () => boolean;
  /** the topology snapshot's JSON body (spec §2.3) */
  topologyJson: () => Buffer;
  version: () => ControllerVersion;
}

/** Body and type of the answer a standby replica gives on leader-only routes (spec §4.2). */
export const NOT_LEADER_BODY = NOT_LEADER;

/** Path of the leader's readiness (both listeners): what the chart's readinessProbe asks, so the Service sends
 * agents and the console to the leader only. `/readyz` keeps its spec §4.2 meaning (gRPC bound). */
export const LEADER_READY_PATH = "/readyz/leader";

/**
 * Registers the routes both listeners serve: /healthz, /readyz, /metrics, and /readyz/leader: 200 `leader` while
 * this replica leads with gRPC bound, else 503 `not the leader` (or `grpc server not bound`), text/plain.
 */
export function addProbeRoutes(
  app: FastifyInstance,
  deps: Pick<HttpApiDeps, "metrics" | "ready" | "isLeader">,
): void {
  app.get(LEADER_READY_PATH, async (_req, reply) => {
    const why = !deps.ready() ? "grpc server not bound" : !deps.isLeader() ? NOT_LEADER : undefined;
    return reply
      .code(why === undefined ? 200 : 503)
      .type("text/plain; charset=utf-8")
      .send(why ?? "leader");
  });
  app.get("/healthz", async (_req, reply) => reply.type("text/plain; charset=utf-8").send("ok"));
  app.get("/readyz", async (_req, reply) => {
    const ready = deps.ready();
    return reply
      .code(ready ? 200 : 503)
      .type("text/plain; charset=utf-8")
      .send(ready ? "ok" : "grpc server not bound");
  });
  app.get("/metrics", async (_req, reply) => {
    const { contentType, body } = await deps.metrics.render();
    return reply.type(contentType).send(body);
  });
}

/** A route as registered: one method and its URL pattern. */
export interface HttpRoute {
  method: string;
  url: string;
}

const ROUTES = new WeakMap<FastifyInstance, HttpRoute[]>();

/** The routes of an app made here, plugins' included (known once the app is ready), e.g. for fuzzing every route. */
export function routesOf(app: FastifyInstance): readonly HttpRoute[] {
  return [...(ROUTES.get(app) ?? [])];
}

/** A Fastify instance with the controller's error handling (api/error-handler.ts) and JSON body parser. */
function createApp(): FastifyInstance {
  const app = Fastify({ logger: false });
  const routes: HttpRoute[] = [];
  ROUTES.set(app, routes);
  app.addHook("onRoute", (r) => {
    for (const method of [r.method].flat()) routes.push({ method, url: r.url });
  });
  installErrorHandler(app);
  installNotFoundHandler(app);
  installJsonBodyParser(app);
  return app;
}

/**
 * The controller's HTTP API on `httpPort` (spec §4.2): probes, /metrics, GET /api/v1/topology (leader only),
 * GET /api/v1/version. Returned unstarted so callers can add routes before listen().
 */
export function createHttpApi(deps: HttpApiDeps): FastifyInstance {
  const app = createApp();
  addProbeRoutes(app, deps);
  app.get("/api/v1/topology", { preHandler: leaderOnly(deps.isLeader) }, async (_req, reply) =>
    reply.type("application/json; charset=utf-8").send(deps.topologyJson()),
  );
  app.get("/api/v1/version", async () => deps.version());
  return app;
}

/** The controller's listener on `metricsPort`: /metrics, /healthz, /readyz. */
export function createMetricsApi(deps: Pick<HttpApiDeps, "metrics" | "ready" | "isLeader">): FastifyInstance {
  const app = createApp();
  addProbeRoutes(app, deps);
  return app;
}
