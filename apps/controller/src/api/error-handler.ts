/**
 * The one table from controller errors to HTTP status codes, and the one Fastify error handler of the controller's
 * listeners (design §4.4). Handlers throw ControllerErrors (errors.ts); domain code never picks status codes.
 *
 * Bodies: `{ "error": { "code", "message" } }` as JSON, except where the text is the contract:
 * - NotLeaderError: 503 `not the leader` as text/plain on every route (spec §4.2);
 * - routes declaring `config: { errorBody: "text" }` answer the message as text/plain (POST /api/v1/diagnostics:
 *   the CLI and the console show that text to the user);
 * - routes declaring `config: { errorBody: "reason" }` answer `{ "error": "<message>" }` (PUT
 *   /api/v1/external-checks, as it always has).
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  ControllerError,
  type ControllerErrorCode,
  InvalidInputError,
  MethodNotAllowedError,
  NotFoundError,
  NotLeaderError,
  TooLargeError,
} from "../errors.ts";

/** Status code per error code. */
export const HTTP_STATUS: Readonly<Record<ControllerErrorCode, number>> = {
  invalid_input: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  disabled: 404,
  method_not_allowed: 405,
  too_large: 413,
  unsupported: 501,
  upstream_failed: 502,
  not_leader: 503,
  timeout: 504,
  conflict: 409,
};

/** How a route words its error bodies (route `config.errorBody`; default "json"). */
export type ErrorBodyStyle = "json" | "text" | "reason";

/** Route config read by the error handler. */
export interface ErrorRouteConfig {
  errorBody?: ErrorBodyStyle;
  /** message for a body over the route's limit (default: Fastify's) */
  tooLargeMessage?: string;
}

/** The JSON error body. */
export interface ErrorBody {
  error: { code: string; message: string };
}

const TEXT = "text/plain; charset=utf-8";

/** Characters a one-line text body may not hold (C0 but tab, DEL, C1, U+2028/2029), as a regular-expression class. */
export const CONTROL_CLASS = "[\\u0000-\\u0008\\u000a-\\u001f\\u007f-\\u009f\\u2028\\u2029]";

/**
 * `text` as one line for a text/plain error body: line breaks and other control characters (C0 but tab, DEL, C1,
 * U+2028/2029) a message may repeat from the caller's input (a node name, a type) become escapes (`\n`, `\u001b`),
 * so the CLI and the console show one line and no terminal sequence (found by http-fuzz.test.ts).
 */
export function oneLine(text: string): string {
  return text.replace(new RegExp(CONTROL_CLASS, "g"), (c) => {
    if (c === "\n") return "\\n";
    if (c === "\r") return "\\r";
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}

/** The HTTP status for `err`. */
export function httpStatus(err: ControllerError): number {
  return HTTP_STATUS[err.code];
}

function routeConfig(req: FastifyRequest): ErrorRouteConfig {
  return (req.routeOptions?.config ?? {}) as ErrorRouteConfig;
}

/** Fastify's own errors (body too large, bad content) as controller errors; undefined for anything else. */
function fromFastify(err: FastifyError, config: ErrorRouteConfig): ControllerError | undefined {
  const status = err.statusCode;
  if (typeof status !== "number" || status < 400 || status >= 500) return undefined;
  if (status === 413) return new TooLargeError(config.tooLargeMessage ?? err.message);
  if (status === 404) return new NotFoundError(err.message);
  return new InvalidInputError(err.message);
}

/** Answers `err` per the table and the route's body style. Unknown errors are 500 `internal error`. */
export async function controllerErrorHandler(
  err: FastifyError | Error,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const config = routeConfig(req);
  const known = err instanceof ControllerError ? err : fromFastify(err as FastifyError, config);
  const status = known === undefined ? 500 : httpStatus(known);
  const code = known?.code ?? "internal";
  const message = known?.message ?? "internal error";
  if (known === undefined) req.log.error({ err }, "unhandled error");
  if (known instanceof MethodNotAllowedError) reply.header("allow", known.allow.join(", "));
  if (known instanceof NotLeaderError || config.errorBody === "text") {
    return reply.code(status).type(TEXT).send(oneLine(message));
  }
  if (config.errorBody === "reason") return reply.code(status).send({ error: message });
  const body: ErrorBody = { error: { code, message } };
  return reply.code(status).send(body);
}

/**
 * Installs the handler on `app` unless it already has it (inherited by plugins registered afterwards). Route
 * modules call it on their scope too, so they behave the same on any Fastify instance.
 */
export function installErrorHandler(app: FastifyInstance): void {
  // Fastify's errorHandler getter does not return the function set, so remember the instances here (setting it
  // twice on one instance draws Fastify's FSTWRN004 warning)
  if (withHandler.has(app)) return;
  withHandler.add(app);
  app.setErrorHandler(controllerErrorHandler);
}

const withHandler = new WeakSet<FastifyInstance>();

/** Installs the JSON 404 for unknown routes (root instances only: Fastify allows one per prefix). */
export function installNotFoundHandler(app: FastifyInstance): void {
  app.setNotFoundHandler(async (req, reply) =>
    controllerErrorHandler(new NotFoundError("not found"), req, reply),
  );
}

/** A hook that refuses every request on a standby with NotLeaderError (503 `not the leader`, text/plain). */
export function leaderOnly(isLeader: () => boolean, message?: string) {
  return async (_req: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    if (!isLeader()) throw new NotLeaderError(message);
  };
}
