import type { ExternalCheckServiceHandlers } from "@svc/protocol";
import { InvalidInputError, NotLeaderError } from "../errors.ts";
import { streamHandler } from "../grpc/grpc-errors.ts";
import { type Logger, silentLogger } from "../logger.ts";
import type { ExternalAssignments } from "./assignments.ts";

export interface ExternalCheckServiceDeps {
  assignments: ExternalAssignments;
  /** a standby holds no assignments: it refuses the stream with UNAVAILABLE `not the leader` */
  isLeader: () => boolean;
  logger?: Logger;
}

/**
 * svc.v1.ExternalCheckService handlers. WatchExternalChecks streams the agent's whole assignment on subscribe
 * (empty when it holds none) and again on every change, until the agent cancels or the store closes.
 * Add to a grpc.Server with `server.addService(externalCheckServiceDefinition(), externalCheckServiceHandlers(deps))`.
 */
export function externalCheckServiceHandlers(deps: ExternalCheckServiceDeps): ExternalCheckServiceHandlers {
  const logger = deps.logger ?? silentLogger;
  return {
    WatchExternalChecks: streamHandler((call) => {
      const agentId = call.request.agent_id ?? "";
      if (agentId === "") throw new InvalidInputError("agent_id: must not be empty");
      if (!deps.isLeader()) throw new NotLeaderError();
      let unsubscribe: (() => void) | undefined;
      const done = (): void => {
        unsubscribe?.();
        unsubscribe = undefined;
      };
      call.on("cancelled", done);
      call.on("close", done);
      call.on("error", done);
      call.on("finish", done);
      unsubscribe = deps.assignments.subscribe({
        agentId,
        send: (a) => call.write(a),
        end: () => call.end(),
      });
      logger.debug({ agentId }, "external-check watch opened");
    }),
  };
}
