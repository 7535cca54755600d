/** Handlers of /healthz, /readyz and /metrics (contract: @svc/contract probes.ts), served on both listeners. */
import * as c from "@svc/contract";
import type { AddRoute } from "./register.ts";

/** What the probe routes read. */
export interface ProbeDeps {
  /** resolves true when the store is migrated and answers (or no store is configured) */
  ready: () => Promise<boolean>;
  metrics: () => Promise<{ contentType: string; body: string }>;
}

/** Registers /healthz (always 200 while serving), /readyz (503 until ready) and /metrics. */
export function addProbeRoutes(add: AddRoute, deps: ProbeDeps): void {
  add(c.healthz, async ({ reply }) => reply.type("text/plain; charset=utf-8").send("ok"));
  add(c.readyz, async ({ reply }) => {
    const ok = await deps.ready();
    return reply
      .code(ok ? 200 : 503)
      .type("text/plain; charset=utf-8")
      .send(ok ? "ok" : "console store not ready");
  });
  add(c.metrics, async ({ reply }) => {
    const { contentType, body } = await deps.metrics();
    return reply.type(contentType).send(body);
  });
}
