/**
 * Fleet routes (the fleet API contract; types in api/fleet-types.ts; rows in docs/console-api.md):
 *   GET  /api/v1/fleet/matrix?protocol=tcp|udp|icmp|pmtu   -> FleetMatrix (&layout=grid -> FleetMatrixGrid)
 *   GET  /api/v1/fleet/topology                             -> FleetTopology
 *   GET  /api/v1/fleet/nodes/:name?protocol=...             -> FleetNode (404 unknown_node)
 *   GET  /api/v1/fleet/pairs/:source/:destination?window=15m|1h|6h|24h -> FleetPair (404 unknown_node)
 *   GET  /api/v1/fleet/overview                             -> FleetOverview
 *   POST /api/v1/fleet/check {source, destination, type?: "tcp"} -> the controller's CheckResult, or its status
 *        with the controller's text as the error message. Needs `runs:create` (and CSRF like every write).
 * Matrix and topology bodies over 64 KiB are gzip-compressed for clients sending Accept-Encoding: gzip.
 * Reads are telemetry reads (spec §5.3): any caller holding a role. Prometheus-backed reads answer 503
 * `metrics_unconfigured` without `prometheus.url`; 502 `controller_unreachable` when the controller cannot be read.
 */

import { promisify } from "node:util";
import { gzip } from "node:zlib";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { ForbiddenError, InvalidInputError } from "../errors.ts";
import { isFleetCoded } from "../fleet/fleet-errors.ts";
import type { FleetService } from "../fleet/fleet-service.ts";
import type { NewAuditRow } from "../store/store.ts";
import { type FleetMatrixGrid, toGrid } from "../web/matrix-grid.ts";
import { type AccessResolver, requireCaller, requirePermission } from "./context.ts";
import { ERROR_STATUS } from "./error-handler.ts";
import type { FleetProtocol, PairWindow } from "./fleet-types.ts";

/** Base path of the fleet routes. */
export const FLEET_PATH = "/api/v1/fleet";

/** Dependencies of the fleet routes. */
export interface FleetRouteDeps {
  fleet: FleetService;
  resolveAccess: AccessResolver;
  audit: (row: Omit<NewAuditRow, "at">) => Promise<void>;
}

const protocolQuery = z.object({ protocol: z.enum(["tcp", "udp", "icmp", "pmtu"]).default("tcp") });
const layoutQuery = z.object({
  layout: z.enum(["cells", "grid"], { message: "layout must be cells or grid" }).default("cells"),
});
const windowQuery = z.object({ window: z.enum(["15m", "1h", "6h", "24h"]).default("1h") });
const checkBody = z.strictObject({
  source: z.string().min(1).max(253),
  destination: z.string().min(1).max(253),
  type: z.literal("tcp").optional(),
});

/** Body codes for controller statuses passed through from POST /api/v1/diagnostics. */
const CONTROLLER_CODES: Readonly<Record<number, string>> = {
  400: "invalid_input",
  404: "not_found",
  413: "too_large",
  501: "not_implemented",
  502: "upstream_failed",
  503: "unavailable",
  504: "timeout",
};

function parse<T>(schema: z.ZodType<T>, v: unknown, what: string): T {
  const r = schema.safeParse(v ?? {});
  if (!r.success) throw new InvalidInputError(`${what}: ${r.error.issues.map((i) => i.message).join("; ")}`);
  return r.data;
}

/** Sends fleet-coded errors with their contract code; rethrows the rest to the console's error handler. */
async function answer(reply: FastifyReply, run: () => Promise<unknown>): Promise<unknown> {
  try {
    return await run();
  } catch (e) {
    if (!isFleetCoded(e)) throw e;
    const status = ERROR_STATUS[e.code as keyof typeof ERROR_STATUS] ?? 502;
    return reply.code(status).send({ error: { code: e.bodyCode, message: e.message } });
  }
}

const gzipAsync = promisify(gzip);

/** Bodies at least this large go gzip-compressed to clients that accept it. */
const GZIP_FROM_BYTES = 64 * 1024;

/** Registers the fleet routes. */
export function addFleetRoutes(app: FastifyInstance, deps: FleetRouteDeps): void {
  const { fleet } = deps;
  const reader = async (req: FastifyRequest): Promise<void> => {
    const access = await deps.resolveAccess(req, requireCaller(req));
    if (access.roles.length === 0) throw new ForbiddenError("no role");
  };
  // encoded bodies per snapshot object: a matrix snapshot served many times is serialized and compressed once
  const encoded = new WeakMap<object, { json: Buffer; gzip?: Buffer }>();
  const sendJson = async (req: FastifyRequest, reply: FastifyReply, body: object) => {
    let e = encoded.get(body);
    if (!e) {
      e = { json: Buffer.from(JSON.stringify(body)) };
      encoded.set(body, e);
    }
    reply.type("application/json; charset=utf-8").header("vary", "accept-encoding");
    const accepts = /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
    if (!accepts || e.json.length < GZIP_FROM_BYTES) return reply.send(e.json);
    e.gzip ??= await gzipAsync(e.json, { level: 1 });
    return reply.header("content-encoding", "gzip").send(e.gzip);
  };
  const protocol = (req: FastifyRequest): FleetProtocol => parse(protocolQuery, req.query, "query").protocol;
  // the grid layout of each matrix snapshot, built once per snapshot
  const grids = new WeakMap<object, FleetMatrixGrid>();

  app.get(`${FLEET_PATH}/matrix`, async (req, reply) => {
    await reader(req);
    const p = protocol(req);
    const { layout } = parse(layoutQuery, req.query, "query");
    return answer(reply, async () => {
      const m = await fleet.matrix(p);
      if (layout === "cells") return sendJson(req, reply, m);
      let g = grids.get(m);
      if (!g) {
        g = toGrid(m);
        grids.set(m, g);
      }
      return sendJson(req, reply, g);
    });
  });
  app.get(`${FLEET_PATH}/topology`, async (req, reply) => {
    await reader(req);
    return answer(reply, async () => sendJson(req, reply, await fleet.topology()));
  });
  app.get(`${FLEET_PATH}/overview`, async (req, reply) => {
    await reader(req);
    return answer(reply, () => fleet.overview());
  });
  app.get(`${FLEET_PATH}/nodes/:name`, async (req, reply) => {
    await reader(req);
    const p = protocol(req);
    const { name } = req.params as { name: string };
    return answer(reply, () => fleet.node(name, p));
  });
  app.get(`${FLEET_PATH}/pairs/:source/:destination`, async (req, reply) => {
    await reader(req);
    const window: PairWindow = parse(windowQuery, req.query, "query").window;
    const { source, destination } = req.params as { source: string; destination: string };
    return answer(reply, () => fleet.pair(source, destination, window));
  });
  app.post(`${FLEET_PATH}/check`, async (req, reply) => {
    const { principal } = await requirePermission(req, deps.resolveAccess, "runs:create");
    const body = parse(checkBody, req.body, "body");
    return answer(reply, async () => {
      const res = await fleet.check(body);
      await deps.audit({
        subject: principal.subject || null,
        subjectDisplay: principal.display,
        action: `POST ${FLEET_PATH}/check`,
        outcome: "allowed",
        remoteAddr: req.clientAddr,
        detail: { source: body.source, destination: body.destination, status: res.status },
      });
      if (res.status === 200 && res.contentType.startsWith("application/json"))
        return reply.code(200).type("application/json").send(res.text);
      const code = CONTROLLER_CODES[res.status] ?? "upstream_failed";
      const status = res.status >= 400 && res.status < 600 ? res.status : 502;
      return reply
        .code(status)
        .send({ error: { code, message: res.text.trim() || `controller answered ${res.status}` } });
    });
  });
}
