/** Handlers of the run routes (contract: @svc/contract runs.ts); 503 without a database; anonymous budget 429. */
import * as c from "@svc/contract";
import type { Budget } from "../auth/rate-limit.ts";
import { UnavailableError } from "../errors.ts";
import type { Runs } from "../runs/runs.ts";
import { spendAnonymous } from "./metrics-queries.ts";
import type { AddRoute } from "./register.ts";

/** Registers the run routes. */
export function addRunRoutes(
  add: AddRoute,
  deps: {
    runs: Runs | undefined;
    /** anonymous callers' budget of probe-starting requests (shared with the pair page's check) */
    budget: Budget;
  },
): void {
  const runs = (): Runs => {
    if (!deps.runs) throw new UnavailableError("runs need the database");
    return deps.runs;
  };
  const { budget } = deps;
  add(c.createRun, async ({ body, actor, principal, req }) => {
    const r = runs();
    await spendAnonymous(budget, principal, req, "runs");
    return r.create(body, actor);
  });
  add(c.listRuns, async ({ query }) => ({ runs: await runs().list(query.limit) }));
  add(c.getRun, ({ params }) => runs().get(params.id));
}
