import type { AgentServiceHandlers, RegisterResponse } from "@svc/protocol";
import { InvalidInputError, TooLargeError } from "../errors.ts";
import { type Logger, silentLogger } from "../logger.ts";
import type { AgentRegistry } from "../registry/registry.ts";
import { validateRegistration } from "../registry/validate.ts";
import { failStream, unaryHandler } from "./grpc-errors.ts";
import type { PeerBroadcaster } from "./peer-broadcaster.ts";

export interface AgentServiceDeps {
  registry: AgentRegistry;
  broadcaster: PeerBroadcaster;
  /** accept loopback advertise addresses */
  allowLoopbackAgents: () => boolean;
  logger?: Logger;
}

/**
 * svc.v1.AgentService: Register (INVALID_ARGUMENT naming the field on bad input), Heartbeat (`known: false` for
 * an unknown agent), Deregister (idempotent), WatchPeers (full list on subscribe, then on
 * every change of the watcher's view a full list, or a delta to a watcher that set `incremental`).
 */
export function agentServiceHandlers(deps: AgentServiceDeps): AgentServiceHandlers {
  const logger = deps.logger ?? silentLogger;
  return {
    Register: unaryHandler((call): RegisterResponse => {
      const result = validateRegistration(call.request, { allowLoopback: deps.allowLoopbackAgents() });
      if (!result.ok) {
        logger.warn({ field: result.field, reason: result.reason }, "registration refused");
        throw new InvalidInputError(`${result.field}: ${result.reason}`);
      }
      const agent = deps.registry.register(result.value);
      return {
        agent_id: agent.id,
        zone: agent.zone,
        http_port: agent.httpPort,
        udp_port: agent.udpPort,
      };
    }),
    Heartbeat(call, callback) {
      callback(null, { known: deps.registry.heartbeat(call.request.agent_id ?? "") });
    },
    Deregister(call, callback) {
      deps.registry.deregister(call.request.agent_id ?? "");
      callback(null, {});
    },
    WatchPeers(call) {
      const agentId = call.request.agent_id ?? "";
      let unsubscribe: (() => void) | undefined;
      const done = (): void => {
        unsubscribe?.();
        unsubscribe = undefined;
      };
      call.on("cancelled", done);
      call.on("close", done);
      call.on("error", done);
      call.on("finish", done);
      unsubscribe = deps.broadcaster.subscribe({
        agentId,
        incremental: call.request.incremental === true,
        send: (list, sent) => call.write(list, () => sent()),
        end: () => call.end(),
        refuse: (reason) => {
          logger.warn({ agentId, reason }, "peer watch refused");
          failStream(call, new TooLargeError(reason));
        },
      });
      logger.debug({ agentId }, "peer watch opened");
    },
  };
}
