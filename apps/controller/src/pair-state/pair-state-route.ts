import type { FastifyInstance } from "fastify";
import { leaderOnly } from "../api/error-handler.ts";
import type { PairStateStore } from "./pair-state-store.ts";

/** Path of the pairs in trouble now as the agents report them (beyond spec §4.2: docs/decisions.md). */
export const PAIR_STATES_PATH = "/api/v1/pair-states";

/** Mounts GET /api/v1/pair-states (leader only: 503 `not the leader` on a standby). */
export function registerPairStatesRoute(
  app: FastifyInstance,
  deps: { store: PairStateStore; isLeader: () => boolean },
): void {
  app.get(PAIR_STATES_PATH, { preHandler: leaderOnly(deps.isLeader) }, async () => deps.store.body());
}
