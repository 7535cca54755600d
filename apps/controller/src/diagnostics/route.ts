import type { Socket } from "node:net";
import type { FastifyInstance, FastifyReply } from "fastify";
import { type ErrorRouteConfig, httpStatus, installErrorHandler, leaderOnly } from "../api/error-handler.ts";
import { installJsonBodyParser } from "../api/json-body.ts";
import type { EventPublisher } from "../events/topics.ts";
import type { CheckResult } from "./check-result.ts";
import {
  DIAGNOSTICS_BODY_LIMIT,
  type DiagnosticRequest,
  parseDiagnosticBody,
  parseTimeoutSeconds,
} from "./request.ts";
import { type DiagnosticDeps, runDiagnostic } from "./run-diagnostic.ts";

/**
 * `controller_diagnostics_total{type,result}` results: success / fail (200 with success true / false), error
 * (refused or failed after validation: 404, 501, 502, 503 leadership lost mid-check), timeout (504), cancelled
 * (the caller disconnected before the answer), undelivered (the answer could not be written). Requests refused
 * before validation (400, 413, 503 on a standby) are not counted, so `type` only ever holds a valid type.
 */
export type DiagnosticsResult = "success" | "fail" | "error" | "timeout" | "cancelled" | "undelivered";

export interface DiagnosticsRouteDeps extends DiagnosticDeps {
  events: EventPublisher;
  count: (type: string, result: DiagnosticsResult) => void;
  /** text/plain body of a standby's 503 */
  notLeaderBody: string;
}

/** Errors of this route are one-line text/plain reasons: the CLI and the console show them as they are. */
const ROUTE_CONFIG: ErrorRouteConfig = { errorBody: "text" };
/** Extra socket time beyond the diagnostic timeout, for dispatch and the answer itself. */
const SOCKET_GRACE_MS = 10_000;

/** Lets the socket live at least `ms` (0 = no timeout is left alone). */
function extendSocketTimeout(socket: Socket | null | undefined, ms: number): void {
  if (!socket) return;
  if (socket.timeout !== undefined && socket.timeout !== 0 && socket.timeout < ms) socket.setTimeout(ms);
}

function scope(req: DiagnosticRequest): string {
  return `${req.source}->${req.destination}`;
}

/**
 * Registers POST /api/v1/diagnostics (spec §4.2) in its own encapsulated scope: 503 `not the leader` on a standby
 * before the body is read; the body is parsed as JSON (any content type, api/json-body.ts: 400 malformed or
 * nested deeper than 64) up to 64 KiB (413 beyond); 400 per parseDiagnosticBody; then runDiagnostic. Errors are answered text/plain with a one-line reason. The socket
 * timeout is extended to the `timeout` query plus a grace. Publishes CheckObserved (MTRCompleted for mtr) for
 * every produced result, and DiagnosticProgress {state: "undelivered"} when the answer could not be written.
 */
export function registerDiagnosticsRoute(app: FastifyInstance, deps: DiagnosticsRouteDeps): void {
  app.register(async (scoped) => {
    installJsonBodyParser(scoped);
    installErrorHandler(scoped);
    const options = {
      bodyLimit: DIAGNOSTICS_BODY_LIMIT,
      config: ROUTE_CONFIG,
      // before the body is read: a standby answers 503 whatever the body (malformed, too deep or too large)
      onRequest: leaderOnly(deps.isLeader, deps.notLeaderBody),
    };
    scoped.post("/api/v1/diagnostics", options, async (request, reply) => {
      const parsed = parseDiagnosticBody(request.body);
      if (!parsed.ok) throw parsed.error;
      const req = parsed.value;
      const query = request.query as Record<string, unknown> | undefined;
      const timeoutMs = Math.round(parseTimeoutSeconds(query?.timeout) * 1000);
      extendSocketTimeout(request.raw.socket, timeoutMs + SOCKET_GRACE_MS);

      // Watch the socket, not the response: a pipelined response still queued behind another never emits
      // 'close' itself when the connection drops.
      const socket = request.raw.socket;
      let cancelled = false;
      const onClose = (): void => {
        cancelled = true;
      };
      socket.once("close", onClose);
      const outcome = await runDiagnostic(req, timeoutMs, deps);
      socket.off("close", onClose);
      if (outcome.result !== undefined) publishResult(deps.events, req, outcome.result);
      if (cancelled || socket.destroyed) {
        deps.count(req.type, "cancelled");
        reply.hijack();
        socket.destroy();
        return reply;
      }
      watchDelivery(
        reply,
        () => deps.count(req.type, outcome.metric),
        () => {
          deps.count(req.type, "undelivered");
          deps.events.publish({
            type: "DiagnosticProgress",
            severity: "warn",
            scope: scope(req),
            payload: {
              state: "undelivered",
              type: req.type,
              source: req.source,
              destination: req.destination,
              destinationKind: req.destinationKind,
              status: outcome.error === undefined ? 200 : httpStatus(outcome.error),
            },
          });
        },
      );
      if (outcome.error !== undefined) throw outcome.error;
      return reply.code(200).send(outcome.result);
    });
  });
}

/**
 * Calls `delivered` once the answer is fully handed to the OS, or `undelivered` when the response or its
 * connection closes first.
 */
function watchDelivery(reply: FastifyReply, delivered: () => void, undelivered: () => void): void {
  const res = reply.raw;
  const socket = reply.request.raw.socket;
  let settled = false;
  const lost = (): void => {
    if (settled) return;
    settled = true;
    res.off("finish", done);
    undelivered();
  };
  const done = (): void => {
    socket.off("close", lost);
    if (settled) return;
    settled = true;
    delivered();
  };
  res.once("finish", done);
  res.once("close", lost);
  socket.once("close", lost);
}

function publishResult(events: EventPublisher, req: DiagnosticRequest, result: CheckResult): void {
  events.publish({
    type: req.type === "mtr" ? "MTRCompleted" : "CheckObserved",
    severity: result.success ? "info" : "warn",
    scope: scope(req),
    payload: { ...result, destinationKind: req.destinationKind },
  });
}
