/** /healthz, /readyz and /metrics, served on both listeners. */
import type { FastifyInstance } from "fastify";

/** What the probe routes read. */
export interface ProbeDeps {
  /** resolves true when the store is migrated and answers (or no store is configured) */
  ready: () => Promise<boolean>;
  metrics: () => Promise<{ contentType: string; body: string }>;
}

/** Registers /healthz (always 200 while serving), /readyz (503 until ready) and /metrics. */
export function addProbeRoutes(app: FastifyInstance, deps: ProbeDeps): void {
  app.get("/healthz", async (_req, reply) => reply.type("text/plain; charset=utf-8").send("ok"));
  app.get("/readyz", async (_req, reply) => {
    const ok = await deps.ready();
    return reply
      .code(ok ? 200 : 503)
      .type("text/plain; charset=utf-8")
      .send(ok ? "ok" : "console store not ready");
  });
  app.get("/metrics", async (_req, reply) => {
    const { contentType, body } = await deps.metrics();
    return reply.type(contentType).send(body);
  });
}
