import type { PairStateServiceHandlers } from "@svc/protocol";
import { InvalidInputError, NotFoundError } from "../errors.ts";
import { quote } from "../grpc/echo.ts";
import { unaryHandler } from "../grpc/grpc-errors.ts";
import type { AgentRegistry } from "../registry/registry.ts";
import type { PairStateStore } from "./pair-state-store.ts";

export interface PairStateServiceDeps {
  registry: Pick<AgentRegistry, "get">;
  store: PairStateStore;
}

/**
 * svc.v1.PairStateService. ReportPairState takes a registered agent's pairs in trouble (behind the AgentGuard:
 * the leader only, from the identity that registered the agent id); the source is the registry's node of that
 * agent, never a name the report carries. INVALID_ARGUMENT without an agent id or for a state that cannot be one;
 * NOT_FOUND for an agent id the registry does not hold (register first).
 */
export function pairStateServiceHandlers(deps: PairStateServiceDeps): PairStateServiceHandlers {
  return {
    ReportPairState: unaryHandler((call) => {
      const agentId = (call.request.agent_id ?? "").trim();
      if (agentId === "") throw new InvalidInputError("agent_id: required");
      const agent = deps.registry.get(agentId);
      if (agent === undefined) throw new NotFoundError(`agent ${quote(agentId)} is not registered`);
      const { needFull } = deps.store.report(agent.id, agent.nodeName, call.request);
      return { need_full: needFull };
    }),
  };
}
