import type { AgentServiceHandlers, RegisterResponse } from "@svc/protocol";
import { ForbiddenError, InvalidInputError, TooLargeError } from "../errors.ts";
import { type Logger, silentLogger } from "../logger.ts";
import type { PodAddresses } from "../nodes/pod-addresses.ts";
import type { RegisteredAgent } from "../registry/agent.ts";
import type { AgentRegistry } from "../registry/registry.ts";
import { validateRegistration } from "../registry/validate.ts";
import { failStream, unaryHandler } from "./grpc-errors.ts";
import type { PeerBroadcaster } from "./peer-broadcaster.ts";

export interface AgentServiceDeps {
  registry: AgentRegistry;
  broadcaster: PeerBroadcaster;
  /** accept loopback advertise addresses */
  allowLoopbackAgents: () => boolean;
  /**
   * Kubernetes mode on the in-cluster listener: the advertised address must be a pod IP on the registering node
   * (else PERMISSION_DENIED), and a live holder of the node name whose address no longer is may be replaced
   */
  podAddresses?: PodAddresses;
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
    Register: unaryHandler(async (call): Promise<RegisterResponse> => {
      const result = validateRegistration(call.request, { allowLoopback: deps.allowLoopbackAgents() });
      if (!result.ok) {
        logger.warn({ field: result.field, reason: result.reason }, "registration refused");
        throw new InvalidInputError(`${result.field}: ${result.reason}`);
      }
      const reg = result.value;
      let stale = new Set<RegisteredAgent>();
      if (deps.podAddresses !== undefined) {
        if (!(await deps.podAddresses.belongs(reg.nodeName, reg.address))) {
          logger.warn(
            { nodeName: reg.nodeName, address: reg.address },
            "registration refused: not the node's pod",
          );
          throw new ForbiddenError(
            `advertise_address: ${reg.address} is not the IP of a pod on node "${reg.nodeName}" in the agents' namespace`,
          );
        }
        stale = await staleHolders(deps, reg.nodeName, reg.agentId || reg.nodeName, reg.address);
      }
      const agent = deps.registry.register(reg, { holderIsStale: (h) => stale.has(h) });
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

/** Holders of the node name or id, registered from another address that is no longer a pod on their node. */
async function staleHolders(
  deps: AgentServiceDeps,
  nodeName: string,
  id: string,
  address: string,
): Promise<Set<RegisteredAgent>> {
  const out = new Set<RegisteredAgent>();
  const pods = deps.podAddresses;
  if (pods === undefined) return out;
  for (const holder of [deps.registry.agentOnNode(nodeName), deps.registry.get(id)]) {
    if (holder === undefined || holder.address === address || out.has(holder)) continue;
    if (!(await pods.belongs(holder.nodeName, holder.address, { fresh: true }))) out.add(holder);
  }
  return out;
}
