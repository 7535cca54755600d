/**
 * Handlers of the fleet routes (contract: @svc/contract fleet.ts). Matrix, topology and overview bodies over 64 KiB
 * are gzip-compressed for clients sending Accept-Encoding: gzip; each snapshot (and each topology or overview built
 * from the same snapshots) is serialized (and compressed) once however often it is served. Fleet errors carry their own body codes (`unknown_node`, `metrics_unconfigured`...);
 * the console's error handler answers them like every other error.
 */

import { promisify } from "node:util";
import { gzip } from "node:zlib";
import * as c from "@svc/contract";
import { toGrid } from "@svc/matrix-grid";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Budget } from "../auth/rate-limit.ts";
import { InvalidInputError } from "../errors.ts";
import { ControllerUnreachableError, controllerAnswerError } from "../fleet/fleet-errors.ts";
import type { FleetService } from "../fleet/fleet-service.ts";
import type { Runs } from "../runs/runs.ts";
import type { NewAuditRow } from "../store/store.ts";
import { spendAnonymous } from "./metrics-queries.ts";
import type { AddRoute } from "./register.ts";

/** Dependencies of the fleet routes. */
export interface FleetRouteDeps {
  fleet: FleetService;
  audit: (row: Omit<NewAuditRow, "at">) => Promise<void>;
  /** with a database the check is an instant run of one pair (a thin wrapper of POST /api/v1/runs) */
  runs?: Runs;
  /** anonymous callers' budget of probe-starting requests, shared with POST /api/v1/runs (429) */
  runBudget: Budget;
}

const gzipAsync = promisify(gzip);

/** Bodies at least this large go gzip-compressed to clients that accept it. */
const GZIP_FROM_BYTES = 64 * 1024;

/** A Time Machine instant may lie this far ahead of the console's clock (clock skew between browser and server). */
const FUTURE_SLACK_MS = 60_000;

/** The `at` query as epoch ms; 400 for an instant in the future. */
function instant(at: string | undefined, now = Date.now()): number | undefined {
  if (at === undefined) return undefined;
  const t = Date.parse(at);
  if (t > now + FUTURE_SLACK_MS) throw new InvalidInputError("at must not be in the future");
  return t;
}

/** Registers the fleet routes. */
export function addFleetRoutes(add: AddRoute, deps: FleetRouteDeps): void {
  const { fleet } = deps;
  // encoded bodies per snapshot object: a matrix snapshot served many times is serialized and compressed once
  const encoded = new WeakMap<object, { json: Buffer; gzip?: Buffer }>();
  const sendJson = async (req: FastifyRequest, reply: FastifyReply, body: object): Promise<FastifyReply> => {
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
  // the grid layout of each matrix snapshot, built once per snapshot
  const grids = new WeakMap<object, c.FleetMatrixGrid>();

  add(c.getMatrix, async ({ req, reply, query }) => {
    const m = await fleet.matrix(query.protocol, instant(query.at));
    if (query.layout === "cells") return sendJson(req, reply, m);
    let g = grids.get(m);
    if (!g) {
      g = toGrid(m);
      grids.set(m, g);
    }
    return sendJson(req, reply, g);
  });
  add(c.getTopology, async ({ req, reply, query }) =>
    sendJson(req, reply, await fleet.topology(instant(query.at))),
  );
  add(c.getOverview, async ({ req, reply, query }) =>
    sendJson(req, reply, await fleet.overview(instant(query.at))),
  );
  add(c.getSuspects, ({ query }) => {
    const at = instant(query.at);
    const from = instant(query.from);
    const to = instant(query.to);
    if (from === undefined && to === undefined) {
      return at === undefined ? fleet.localization.current() : fleet.localization.at(at);
    }
    if (from === undefined || to === undefined) throw new InvalidInputError("from and to go together");
    if (at !== undefined) throw new InvalidInputError("at and from/to exclude each other");
    if (to <= from) throw new InvalidInputError("to must be after from");
    if (to - from > fleet.maxRangeMs)
      throw new InvalidInputError("the window is longer than prometheus.maxRange");
    return fleet.localization.window(from, to);
  });
  add(c.getNode, ({ params, query }) => fleet.node(params.name, query.protocol, instant(query.at)));
  add(c.getPair, ({ params, query }) =>
    fleet.pair(params.source, params.destination, query.window, instant(query.at)),
  );
  // the row is written before the controller is asked: a check whose row cannot be written is not run (503)
  add(c.runFleetCheck, async ({ reply, body, actor, principal, req }) => {
    await spendAnonymous(deps.runBudget, principal, req, "runs");
    if (deps.runs) {
      // an instant run of this one pair (audited with the run), answered with the pair's CheckResult
      const started = await deps.runs.create(
        {
          type: body.type ?? "tcp",
          pairs: [{ source: body.source, destination: body.destination }],
          sources: [],
          destinations: [],
          durationSeconds: 0,
        },
        actor,
      );
      const pair = (await deps.runs.done(started.id)).pairs[0];
      if (pair?.lastResult && pair.lastStatus === 200) return reply.code(200).send(pair.lastResult);
      const text = (pair?.lastError ?? "").replace(/^controller answered \d+: /, "");
      if (pair?.lastStatus == null) throw new ControllerUnreachableError(text || "controller unreachable");
      throw controllerAnswerError(pair.lastStatus, text);
    }
    await deps.audit({
      ...actor,
      outcome: "allowed",
      detail: { source: body.source, destination: body.destination },
    });
    const res = await fleet.check(body);
    if (res.status === 200 && res.contentType.startsWith("application/json"))
      return reply.code(200).type("application/json").send(res.text);
    throw controllerAnswerError(res.status, res.text);
  });
}
