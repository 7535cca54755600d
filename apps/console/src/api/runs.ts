/** Handlers of the run routes (contract: @svc/contract runs.ts); 503 without a database; anonymous budget 429. */
import * as c from "@svc/contract";
import type { BudgetFactory } from "../auth/rate-limit.ts";
import { UnavailableError } from "../errors.ts";
import type { Runs } from "../runs/runs.ts";
import { ANONYMOUS_RUNS_PER_MINUTE, spendAnonymous } from "./metrics-queries.ts";
import type { AddRoute } from "./register.ts";

/** Registers the run routes. */
export function addRunRoutes(add: AddRoute, deps: { runs: Runs | undefined; budgets: BudgetFactory }): void {
  const runs = (): Runs => {
    if (!deps.runs) throw new UnavailableError("runs need the database");
    return deps.runs;
  };
  const budget = deps.budgets("anonymous-runs", ANONYMOUS_RUNS_PER_MINUTE, 60_000);
  add(c.createRun, async ({ body, actor, principal, req }) => {
    const r = runs();
    await spendAnonymous(budget, principal, req, "runs");
    return r.create(body, actor);
  });
  add(c.listRuns, async ({ query }) => ({ runs: await runs().list(query.limit) }));
  add(c.getRun, ({ params }) => runs().get(params.id));
}
