import type { FastifyError, FastifyInstance } from "fastify";
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
 * handler touch nothing else). Status codes: 200 `{agents, changed, unknown}`; 400 `{error}` for invalid JSON or an
 * invalid spec (reason names the path); 413 over 8 MiB; 503 `not the leader` (text/plain) on a standby, decided
 * before the body is read. The body is parsed as JSON whatever its Content-Type. Routes exist after app.ready().
 */
export function registerExternalChecksRoutes(app: FastifyInstance, deps: ExternalChecksRouteDeps): void {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      "*",
      { parseAs: "string", bodyLimit: EXTERNAL_CHECKS_BODY_LIMIT },
      (_req, body, done) => done(null, body),
    );
    scope.setErrorHandler(async (err: FastifyError, _req, reply) => {
      const code = err.statusCode === 413 ? 413 : (err.statusCode ?? 500) < 500 ? 400 : 500;
      const error = code === 413 ? "body over 8 MiB" : err.message;
      return reply.code(code).send({ error });
    });
    scope.put(EXTERNAL_CHECKS_PATH, {
      bodyLimit: EXTERNAL_CHECKS_BODY_LIMIT,
      onRequest: async (_req, reply) => {
        if (!deps.isLeader()) {
          await reply.code(503).type("text/plain; charset=utf-8").send("not the leader");
        }
      },
      handler: async (req, reply) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(typeof req.body === "string" ? req.body : "");
        } catch (err) {
          return reply.code(400).send({ error: `invalid JSON: ${(err as Error).message}` });
        }
        const result = validateExternalChecksBody(parsed);
        if (!result.ok) return reply.code(400).send({ error: result.reason });
        return reply.code(200).send(deps.assignments.replace(result.agents));
      },
    });
  });
}
