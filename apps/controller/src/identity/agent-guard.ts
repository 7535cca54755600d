import type { PeerCertificate } from "node:tls";
import type { grpc } from "@svc/protocol";
import { type ControllerError, ForbiddenError, NotLeaderError } from "../errors.ts";
import { quote } from "../grpc/echo.ts";
import { toServiceError } from "../grpc/grpc-errors.ts";
import { type Logger, silentLogger } from "../logger.ts";
import type { CallerIdentity } from "./caller.ts";

/** A service as grpc.Server.addService takes it. */
export interface GuardedService {
  definition: grpc.ServiceDefinition;
  handlers: grpc.UntypedServiceImplementation;
}

/** What the guard reads of a call. */
export interface IdentifiedCall {
  metadata: grpc.Metadata;
  getPeer(): string;
  getAuthContext(): { sslPeerCertificate?: PeerCertificate };
  request?: unknown;
}

export interface AgentGuardOptions {
  /** false on a standby: every call is refused with UNAVAILABLE `not the leader` */
  isLeader: () => boolean;
  /** proves who calls; throws a ControllerError (UNAUTHENTICATED, PERMISSION_DENIED, UNAVAILABLE) to refuse */
  authenticate: (call: IdentifiedCall) => CallerIdentity | Promise<CallerIdentity>;
  /** the owner key of a registered agent id; undefined when the id is not registered */
  ownerOf: (agentId: string) => string | undefined;
  logger?: Logger;
}

interface OpenStream {
  owner: string;
  fail(err: ControllerError): void;
}

function record(v: unknown): Record<string, unknown> | undefined {
  return typeof v === "object" && v !== null ? (v as Record<string, unknown>) : undefined;
}

/**
 * The agent-facing gRPC services' gate (issue 33), one per listener. Every call, in this order:
 * 1. on a standby: UNAVAILABLE `not the leader` (the agents' reconnecting stream re-dials, reaching the leader),
 *    except for a task's result (ReportTaskResult), which answers a task this replica dispatched;
 * 2. the caller's identity is proved (`authenticate`: a reviewed pod, a pinned certificate, or the source
 *    address), else the refusal it throws;
 * 3. a request naming an `agent_id` (Heartbeat, Deregister, WatchPeers, WatchTasks, WatchExternalChecks,
 *    ReportTaskResult, ReportPairState) whose agent is registered must come from the identity that registered it, else
 *    PERMISSION_DENIED. Register (a request with `node_name`) is judged by the agent service itself, which reads
 *    the identity with identityOf().
 * A server stream opened under an agent id is remembered while open: when that id is registered again by another
 * identity, or this replica stops leading, the stream ends (PERMISSION_DENIED, or UNAVAILABLE `not the leader`).
 */
export class AgentGuard {
  readonly #opts: AgentGuardOptions;
  readonly #logger: Logger;
  readonly #identities = new WeakMap<object, CallerIdentity>();
  readonly #streams = new Map<string, Set<OpenStream>>();

  constructor(opts: AgentGuardOptions) {
    this.#opts = opts;
    this.#logger = opts.logger ?? silentLogger;
  }

  /** The identity the guard proved for `call` (set before the handler runs). */
  identityOf(call: object): CallerIdentity | undefined {
    return this.#identities.get(call);
  }

  /** Ends the open streams under `agentId` not opened by `owner` (the id was registered by `owner`). */
  registered(agentId: string, owner: string): void {
    for (const s of [...(this.#streams.get(agentId) ?? [])])
      if (s.owner !== owner)
        s.fail(new ForbiddenError(`agent ${quote(agentId)} was registered by another caller`));
  }

  /** Ends every open stream with UNAVAILABLE `not the leader` (this replica stopped leading). */
  endAll(): void {
    for (const set of [...this.#streams.values()]) for (const s of [...set]) s.fail(new NotLeaderError());
  }

  /** Open streams under agent ids (for tests and metrics). */
  get openStreams(): number {
    let n = 0;
    for (const set of this.#streams.values()) n += set.size;
    return n;
  }

  /** `service` with every unary and server-streaming method behind the gate (client streams: none here). */
  wrap(service: GuardedService): GuardedService {
    const wrapped: grpc.UntypedServiceImplementation = {};
    for (const [name, method] of Object.entries(service.definition)) {
      const inner =
        service.handlers[name] ?? (method.originalName ? service.handlers[method.originalName] : undefined);
      if (inner === undefined) continue;
      if (method.requestStream) {
        wrapped[name] = inner;
        continue;
      }
      if (!method.responseStream) {
        const h = inner as grpc.handleUnaryCall<unknown, unknown>;
        wrapped[name] = ((call, callback) => {
          this.#admit(call, method.path).then(
            () => h(call, callback),
            (err: unknown) => callback(toServiceError(err)),
          );
        }) as grpc.handleUnaryCall<unknown, unknown>;
      } else {
        const h = inner as grpc.handleServerStreamingCall<unknown, unknown>;
        wrapped[name] = ((call) => {
          this.#admit(call, method.path).then(
            (who) => {
              if (call.cancelled) return;
              this.#track(call, who);
              h(call);
            },
            (err: unknown) => call.emit("error", toServiceError(err)),
          );
        }) as grpc.handleServerStreamingCall<unknown, unknown>;
      }
    }
    return { definition: service.definition, handlers: wrapped };
  }

  async #admit(call: IdentifiedCall, path: string): Promise<CallerIdentity> {
    try {
      const req = record(call.request);
      // an answer to a task this replica dispatched (ReportTaskResult) is taken even after leadership moved on
      if (!(req !== undefined && "task_id" in req) && !this.#opts.isLeader()) throw new NotLeaderError();
      const who = await this.#opts.authenticate(call);
      const agentId = typeof req?.agent_id === "string" ? req.agent_id.trim() : "";
      if (agentId !== "" && !(req !== undefined && "node_name" in req)) {
        const owner = this.#opts.ownerOf(agentId);
        if (owner !== undefined && owner !== who.key)
          throw new ForbiddenError(`agent ${quote(agentId)} was registered by another caller`);
      }
      this.#identities.set(call, who);
      return who;
    } catch (err) {
      if (!(err instanceof NotLeaderError))
        this.#logger.warn(
          { method: path, peer: call.getPeer(), reason: (err as Error).message },
          "agent call refused",
        );
      throw err;
    }
  }

  #track(call: grpc.ServerWritableStream<unknown, unknown>, who: CallerIdentity): void {
    const req = record(call.request);
    const agentId = typeof req?.agent_id === "string" ? req.agent_id.trim() : "";
    if (agentId === "") return;
    let ended = false;
    const entry: OpenStream = {
      owner: who.key,
      fail: (err) => {
        if (ended) return;
        done();
        call.emit("error", toServiceError(err));
      },
    };
    const done = (): void => {
      ended = true;
      const set = this.#streams.get(agentId);
      set?.delete(entry);
      if (set?.size === 0) this.#streams.delete(agentId);
    };
    let set = this.#streams.get(agentId);
    if (set === undefined) {
      set = new Set();
      this.#streams.set(agentId, set);
    }
    set.add(entry);
    call.on("cancelled", done);
    call.on("close", done);
    call.on("finish", done);
    call.on("error", done);
  }
}
