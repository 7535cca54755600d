import type { AgentServiceHandlers, RegisterResponse } from "@svc/protocol";
import { ForbiddenError, InvalidInputError, TooLargeError } from "../errors.ts";
import { addressIdentity, type CallerIdentity, canonicalIp, inCidrs, peerIp } from "../identity/caller.ts";
import { type Logger, silentLogger } from "../logger.ts";
import type { RegisteredAgent, Registration } from "../registry/agent.ts";
import type { AgentRegistry } from "../registry/registry.ts";
import { validateRegistration } from "../registry/validate.ts";
import { quote } from "./echo.ts";
import { failStream, unaryHandler } from "./grpc-errors.ts";
import type { PeerBroadcaster } from "./peer-broadcaster.ts";

export interface AgentServiceDeps {
  registry: AgentRegistry;
  broadcaster: PeerBroadcaster;
  /** accept loopback advertise addresses */
  allowLoopbackAgents: () => boolean;
  /** the identity the listener's AgentGuard proved for a call; default: the call's source address */
  identityOf?: (call: object) => CallerIdentity | undefined;
  /**
   * Networks whose connections may advertise another address than their source (`controller.trustedProxyCidrs`);
   * undefined: the source-address rule is off (test rigs that drive the service without a guard)
   */
  trustedProxyCidrs?: () => readonly string[];
  /** IPv4 prefixes known on the path: their directed broadcast address is refused (the controller's subnets) */
  knownPrefixes?: readonly string[];
  /** Kubernetes mode: whether the pod `name` with `uid` still exists (a fresh read) */
  podExists?: (name: string, uid: string) => Promise<boolean>;
  logger?: Logger;
}

/**
 * svc.v1.AgentService: Register (INVALID_ARGUMENT naming the field on bad input; PERMISSION_DENIED when the
 * caller may not claim the node, the address or the agent id, see checkClaim and checkOwnership), Heartbeat
 * (`known: false` for an unknown agent), Deregister (idempotent), WatchPeers (full list on subscribe, then on every
 * change of the watcher's view a full list, or a delta to a watcher that set `incremental`). Who may call what
 * for which agent id is the AgentGuard's (identity/agent-guard.ts).
 */
export function agentServiceHandlers(deps: AgentServiceDeps): AgentServiceHandlers {
  const logger = deps.logger ?? silentLogger;
  return {
    Register: unaryHandler(async (call): Promise<RegisterResponse> => {
      const result = validateRegistration(call.request, {
        allowLoopback: deps.allowLoopbackAgents(),
        knownPrefixes: deps.knownPrefixes ?? [],
      });
      if (!result.ok) {
        logger.warn({ field: result.field, reason: result.reason }, "registration refused");
        throw new InvalidInputError(`${result.field}: ${result.reason}`);
      }
      const reg = result.value;
      const who = deps.identityOf?.(call) ?? addressIdentity(peerIp(call.getPeer()));
      try {
        checkClaim(deps, who, reg);
        const stale = await checkOwnership(deps, who, reg);
        const agent = deps.registry.register(reg, {
          holderIsStale: (h) => stale.has(h),
          owner: who.key,
          ...(who.kind === "pod" ? { ownerPod: { name: who.pod.name, uid: who.pod.uid } } : {}),
        });
        return { agent_id: agent.id, zone: agent.zone, http_port: agent.httpPort, udp_port: agent.udpPort };
      } catch (err) {
        if (err instanceof ForbiddenError)
          logger.warn(
            { nodeName: reg.nodeName, caller: who.key, reason: err.message },
            "registration refused",
          );
        throw err;
      }
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

/**
 * What the caller may claim (PERMISSION_DENIED otherwise). A reviewed pod: its own node's name, and one of its pod
 * IPs (a host-network pod: one of its node's addresses). Any other caller: the address its connection comes
 * from, unless it connects from a trusted proxy network.
 */
function checkClaim(deps: AgentServiceDeps, who: CallerIdentity, reg: Registration): void {
  const address = canonicalIp(reg.address);
  if (who.kind === "pod") {
    const pod = who.pod;
    if (reg.nodeName !== pod.nodeName)
      throw new ForbiddenError(
        `node_name: pod ${quote(pod.name)} runs on node ${quote(pod.nodeName)}, not ${quote(reg.nodeName)}`,
      );
    const own = (pod.hostNetwork ? pod.nodeAddresses : pod.podIps).map(canonicalIp);
    if (!own.includes(address))
      throw new ForbiddenError(
        `advertise_address: ${reg.address} is not an address of pod ${quote(pod.name)}` +
          (pod.hostNetwork
            ? ` (host network: its node's addresses ${own.join(", ")})`
            : ` (${own.join(", ")})`),
      );
    return;
  }
  const trusted = deps.trustedProxyCidrs?.();
  if (trusted === undefined || address === who.peer || inCidrs(who.peer, trusted)) return;
  throw new ForbiddenError(
    `advertise_address: ${reg.address} is not the address this connection comes from (${who.peer || "unknown"}); ` +
      "an agent behind a NAT or proxy needs that network in controller.trustedProxyCidrs",
  );
}

/**
 * Whether the caller may (re-)register this agent id and node name: an id registered by another identity is
 * refused (PERMISSION_DENIED) until that registration expires or, in Kubernetes mode, its pod is gone and the
 * caller is a pod on the same node. Returns the live holders of the id or node name that may be replaced (their
 * pod is gone), for the registry's node-name rule.
 */
async function checkOwnership(
  deps: AgentServiceDeps,
  who: CallerIdentity,
  reg: Registration,
): Promise<Set<RegisteredAgent>> {
  const stale = new Set<RegisteredAgent>();
  const id = reg.agentId !== "" ? reg.agentId : reg.nodeName;
  const byId = deps.registry.get(id);
  const byNode = deps.registry.agentOnNode(reg.nodeName);
  for (const holder of [byId, byNode]) {
    if (holder === undefined || holder.owner === who.key || stale.has(holder)) continue;
    if (await podGone(deps, who, holder)) stale.add(holder);
  }
  if (byId !== undefined && byId.owner !== who.key && !stale.has(byId) && !deps.registry.expired(byId)) {
    throw new ForbiddenError(
      `agent_id: agent ${quote(id)} was registered by another caller; it can be registered again from there, ` +
        "or by anyone once it has not been heard from for controller.agentTtl",
    );
  }
  return stale;
}

/** Kubernetes mode: `holder` was registered by a pod that no longer exists, and `who` is a pod on its node. */
async function podGone(
  deps: AgentServiceDeps,
  who: CallerIdentity,
  holder: RegisteredAgent,
): Promise<boolean> {
  if (who.kind !== "pod" || holder.ownerPod === undefined || deps.podExists === undefined) return false;
  if (holder.nodeName !== who.pod.nodeName) return false;
  return !(await deps.podExists(holder.ownerPod.name, holder.ownerPod.uid));
}
