import type { FastifyInstance } from "fastify";
import { type ErrorRouteConfig, installErrorHandler, leaderOnly } from "../api/error-handler.ts";
import { installJsonBodyParser } from "../api/json-body.ts";
import { InvalidInputError } from "../errors.ts";
import type { ExternalAssignments } from "./assignments.ts";
import { validateExternalChecksBody } from "./validate-body.ts";

/** Path of the continuous external-check assignment (spec §4.2). */
export const EXTERNAL_CHECKS_PATH = "/api/v1/external-checks";
/** Body limit of PUT /api/v1/external-checks: 8 MiB (spec §8.1). */
export const EXTERNAL_CHECKS_BODY_LIMIT = 8 * 1024 * 1024;

export interface ExternalChecksRouteDeps {
  assignments: ExternalAssignments;
  isLeader: () => boolean;
}

/**
 * Mounts PUT /api/v1/external-checks on `app` inside its own encapsulated plugin (so its body parser and error
 * handler touch nothing else). Status codes: 200 `{agents, changed, unknown}`; 400 `{error}` for malformed JSON (nesting over 64
 * included, api/json-body.ts) or an invalid spec (reason names the path); 413 over 8 MiB; 503 `not the leader` (text/plain) on a standby, decided
 * before the body is read. Errors are thrown and answered by api/error-handler.ts (this route's body style:
 * `{error: reason}`). The body is parsed as JSON whatever its Content-Type. Routes exist after app.ready().
 */
export function registerExternalChecksRoutes(app: FastifyInstance, deps: ExternalChecksRouteDeps): void {
  app.register(async (scope) => {
    installJsonBodyParser(scope);
    installErrorHandler(scope);
    const config: ErrorRouteConfig = { errorBody: "reason", tooLargeMessage: "body over 8 MiB" };
    scope.put(EXTERNAL_CHECKS_PATH, {
      bodyLimit: EXTERNAL_CHECKS_BODY_LIMIT,
      config,
      onRequest: leaderOnly(deps.isLeader),
      handler: async (req, reply) => {
        if (req.body === undefined) throw new InvalidInputError("malformed JSON: empty body");
        const result = validateExternalChecksBody(req.body);
        if (!result.ok) throw new InvalidInputError(result.reason);
        return reply.code(200).send(deps.assignments.replace(result.agents));
      },
    });
  });
}
