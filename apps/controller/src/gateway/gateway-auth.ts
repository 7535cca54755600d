import type { PeerCertificate } from "node:tls";
import { EXTERNAL_ZONE, type grpc, LABEL_EXTERNAL } from "@svc/protocol";
import { type ControllerError, ForbiddenError, UnauthenticatedError } from "../errors.ts";
import { quote } from "../grpc/echo.ts";
import { toServiceError } from "../grpc/grpc-errors.ts";
import { type Logger, silentLogger } from "../logger.ts";
import { isExternalAgent } from "../registry/registry.ts";
import { checkBearerToken } from "./bearer-token.ts";
import { certificateIdentities, identityMatches } from "./client-identity.ts";

/** An agent as the gateway needs to see it; AgentRegistry satisfies GatewayAgentLookup. */
export interface GatewayAgentView {
  id: string;
  nodeName: string;
  labels: Record<string, string>;
}

/** Read access to the registry, to stop a gateway caller from speaking for agents that are not its own. */
export interface GatewayAgentLookup {
  get(agentId: string): GatewayAgentView | undefined;
  list(): GatewayAgentView[];
}

export interface GatewayAuthOptions {
  /** the bootstrap token (trimmed) */
  token: string;
  /** true when a client CA is configured: every call must carry a verified certificate pinned to its node name */
  pinIdentity: boolean;
  /** registry view; without it the agent-ownership checks are skipped */
  agents?: GatewayAgentLookup;
  logger?: Logger;
}

/** A service the gateway serves: a grpc-js definition and its handlers (as for grpc.Server.addService). */
export interface GatewayService {
  definition: grpc.ServiceDefinition;
  handlers: grpc.UntypedServiceImplementation;
}

/** Why a call is refused: UnauthenticatedError or ForbiddenError (grpc/grpc-errors.ts picks the status). */
type Refusal = ControllerError;

interface GuardedCall {
  metadata: grpc.Metadata;
  getAuthContext(): { sslPeerCertificate?: PeerCertificate };
  getPeer(): string;
  request?: unknown;
}

function record(v: unknown): Record<string, unknown> | undefined {
  return typeof v === "object" && v !== null ? (v as Record<string, unknown>) : undefined;
}

function str(v: unknown): string {
  return typeof v === "string" ? v.trim() : "";
}

/**
 * Decides one call, in this order:
 * 1. bearer token (`authorization: Bearer <token>`): missing or wrong -> UNAUTHENTICATED;
 * 2. with pinIdentity, a verified client certificate must be present (else UNAUTHENTICATED) and a request's
 *    `node_name` must be one of its identities (CN or DNS SAN, see identityMatches) -> else PERMISSION_DENIED;
 * 3. with `agents`, a request's `agent_id` that names a registered agent must name an external one (and, with
 *    pinIdentity, one whose node name the certificate pins), and a `node_name` held by an in-cluster agent is
 *    refused -> PERMISSION_DENIED. An unknown `agent_id` passes (the service answers as it does for anyone).
 * Finally a request with `node_name` (AgentService.Register) is stamped external: label `svc.io/external=true`
 * and zone `external`, whatever the caller sent.
 */
function authorize(call: GuardedCall, opts: GatewayAuthOptions): Refusal | undefined {
  const tokenProblem = checkBearerToken(call.metadata, opts.token);
  if (tokenProblem !== undefined) return new UnauthenticatedError(tokenProblem);
  let identities: string[] = [];
  if (opts.pinIdentity) {
    identities = certificateIdentities(call.getAuthContext().sslPeerCertificate);
    if (identities.length === 0) return new UnauthenticatedError("client certificate without CN or DNS name");
  }
  const req = record(call.request);
  if (req === undefined) return undefined;
  const nodeName = str(req.node_name);
  // A registration without an id takes the node name as its id (AgentRegistry.register), so check that id.
  const agentId = str(req.agent_id) || ("node_name" in req ? nodeName : "");
  if (opts.pinIdentity && "node_name" in req && !identityMatches(identities, nodeName)) {
    return new ForbiddenError(
      `node name ${quote(nodeName)} does not match the client certificate (${quote(identities.join(", "))})`,
    );
  }
  const agents = opts.agents;
  if (agents === undefined) return undefined;
  if (agentId !== "") {
    const held = agents.get(agentId);
    if (held !== undefined && !isExternalAgent(held.labels))
      return new ForbiddenError(`agent ${quote(agentId)} is an in-cluster agent`);
    if (held !== undefined && opts.pinIdentity && !identityMatches(identities, held.nodeName))
      return new ForbiddenError(
        `agent ${quote(agentId)} belongs to node ${quote(held.nodeName)}, not to this client certificate`,
      );
  }
  if (nodeName !== "") {
    const inCluster = agents.list().find((a) => a.nodeName === nodeName && !isExternalAgent(a.labels));
    if (inCluster !== undefined) return new ForbiddenError(`node ${quote(nodeName)} has an in-cluster agent`);
  }
  return undefined;
}

function stampExternal(request: unknown): void {
  const req = record(request);
  if (req === undefined || !("node_name" in req)) return;
  req.labels = { ...(record(req.labels) ?? {}), [LABEL_EXTERNAL]: "true" };
  req.zone = EXTERNAL_ZONE;
}

/**
 * Wraps every method of `service` with the gateway's checks (see authorize above). Unary and server-streaming
 * calls are checked before the handler runs and refused with a gRPC status; client- and bidi-streaming calls
 * get the token and certificate checks only (their messages arrive later). Refusals are logged at warn with the
 * peer and reason, never the token.
 */
export function withGatewayAuth(service: GatewayService, opts: GatewayAuthOptions): GatewayService {
  const logger = opts.logger ?? silentLogger;
  const wrapped: grpc.UntypedServiceImplementation = {};
  for (const [name, method] of Object.entries(service.definition)) {
    const inner =
      service.handlers[name] ?? (method.originalName ? service.handlers[method.originalName] : undefined);
    if (inner === undefined) continue;
    const check = (call: GuardedCall): Refusal | undefined => {
      const refusal = authorize(call, opts);
      if (refusal !== undefined) {
        logger.warn(
          { method: method.path, peer: call.getPeer(), reason: refusal.message },
          "gateway call refused",
        );
      } else {
        stampExternal(call.request);
      }
      return refusal;
    };
    if (!method.requestStream && !method.responseStream) {
      const h = inner as grpc.handleUnaryCall<unknown, unknown>;
      wrapped[name] = ((call, callback) => {
        const r = check(call);
        if (r !== undefined) callback(toServiceError(r));
        else h(call, callback);
      }) as grpc.handleUnaryCall<unknown, unknown>;
    } else if (!method.requestStream) {
      const h = inner as grpc.handleServerStreamingCall<unknown, unknown>;
      wrapped[name] = ((call) => {
        const r = check(call);
        if (r !== undefined) call.emit("error", toServiceError(r));
        else h(call);
      }) as grpc.handleServerStreamingCall<unknown, unknown>;
    } else if (!method.responseStream) {
      const h = inner as grpc.handleClientStreamingCall<unknown, unknown>;
      wrapped[name] = ((call, callback) => {
        const r = check(call);
        if (r !== undefined) callback(toServiceError(r));
        else h(call, callback);
      }) as grpc.handleClientStreamingCall<unknown, unknown>;
    } else {
      const h = inner as grpc.handleBidiStreamingCall<unknown, unknown>;
      wrapped[name] = ((call) => {
        const r = check(call);
        if (r !== undefined) call.emit("error", toServiceError(r));
        else h(call);
      }) as grpc.handleBidiStreamingCall<unknown, unknown>;
    }
  }
  return { definition: service.definition, handlers: wrapped };
}
