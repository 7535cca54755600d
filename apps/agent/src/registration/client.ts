import { randomUUID } from "node:crypto";
import {
  type AgentServiceClient,
  applyPeerList,
  byNodeThenId,
  createAgentServiceClient,
  grpc,
  type Peer,
  type PeerList,
  type PeerMessage,
  peerFromMessage,
  type RegisterRequest,
} from "@svc/protocol";
import { type BackoffPolicy, backoffDelay, REGISTER_BACKOFF } from "./facts.ts";
import { type Logger, silentLogger } from "./logger.ts";

/**
 * Receives each peer list: the full set of peers (never the agent itself) sorted by node name then agent id,
 * planned node names (sparse mode only), own zone. Called once per message from the controller, with the
 * whole set even when the controller sent a delta.
 */
export type PeersListener = (peers: Peer[], planned: string[] | undefined, zone: string) => void;

export interface RegistrationClientOptions {
  /** host:port of the controller's gRPC listener */
  controllerAddress: string;
  nodeName: string;
  advertiseAddress: string;
  /** empty: the controller resolves it */
  zone: string;
  labels: Record<string, string>;
  capabilities: string[];
  /** this agent's own ports; 0 = not reported */
  ports: { httpPort: number; udpPort: number; metricsPort: number };
  /** agent release */
  version: string;
  logger?: Logger;
  /** default: insecure */
  credentials?: grpc.ChannelCredentials;
  /** default: a random UUID, kept for the life of the client */
  agentId?: string;
  /** default 5000 */
  heartbeatIntervalMs?: number;
  /** default REGISTER_BACKOFF (2 s doubling to 30 s, 25% jitter) */
  backoff?: BackoffPolicy;
  /** deadline of each unary call, ms; default 5000 */
  callTimeoutMs?: number;
}

/**
 * The agent's side of registration: registers, heartbeats, watches peers, and deregisters on stop. Re-registers
 * when the controller forgets it (heartbeat `known: false`), when the peer stream breaks, and when capabilities
 * change; failed attempts back off per `backoff`. Only the zone is adopted from the controller's reply.
 */
export class RegistrationClient {
  readonly #opts: RegistrationClientOptions;
  readonly #logger: Logger;
  readonly #client: AgentServiceClient;
  readonly #agentId: string;
  readonly #backoff: BackoffPolicy;
  readonly #listeners = new Set<PeersListener>();
  #capabilities: string[];
  #zone = "";
  #ready = false;
  #started = false;
  #stopped = false;
  #registeredOnce = false;
  #inFlight = false;
  #again = false;
  #attempt = 0;
  #retryTimer: NodeJS.Timeout | undefined;
  #heartbeatTimer: NodeJS.Timeout | undefined;
  #watch: grpc.ClientReadableStream<PeerList> | undefined;

  constructor(opts: RegistrationClientOptions) {
    this.#opts = opts;
    this.#logger = opts.logger ?? silentLogger;
    this.#agentId = opts.agentId ?? randomUUID();
    this.#backoff = opts.backoff ?? REGISTER_BACKOFF;
    this.#capabilities = [...opts.capabilities];
    this.#zone = opts.zone;
    this.#client = createAgentServiceClient(
      opts.controllerAddress,
      opts.credentials ?? grpc.credentials.createInsecure(),
      { "grpc.initial_reconnect_backoff_ms": 500, "grpc.max_reconnect_backoff_ms": 5000 },
    );
  }

  /** Starts registering (in the background) and heartbeating. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#heartbeatTimer = setInterval(() => this.#heartbeat(), this.#opts.heartbeatIntervalMs ?? 5000);
    this.#requestRegister();
  }

  /** Stops everything and deregisters (best effort, at most ~2 s). */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    clearInterval(this.#heartbeatTimer);
    clearTimeout(this.#retryTimer);
    const watch = this.#watch;
    this.#watch = undefined;
    watch?.cancel();
    if (this.#registeredOnce) {
      await new Promise<void>((resolve) => {
        this.#client.Deregister({ agent_id: this.#agentId }, { deadline: Date.now() + 2000 }, (err) => {
          if (err) this.#logger.warn({ err: err.message }, "deregister failed");
          resolve();
        });
      });
    }
    this.#client.close();
  }

  /** True once the first peer list arrived (and stays true: the last list keeps being probed). */
  ready(): boolean {
    return this.#ready;
  }

  /** The zone from the controller's last registration reply (the configured zone before the first). */
  zone(): string {
    return this.#zone;
  }

  /** The id this agent registers under. */
  agentId(): string {
    return this.#agentId;
  }

  /** The capabilities currently advertised. */
  capabilities(): string[] {
    return [...this.#capabilities];
  }

  /** Subscribes to peer lists; returns the unsubscribe function. */
  onPeers(cb: PeersListener): () => void {
    this.#listeners.add(cb);
    return () => this.#listeners.delete(cb);
  }

  /** Advertises new capabilities: re-registers when they differ from the current ones. */
  updateCapabilities(caps: readonly string[]): void {
    if (caps.length === this.#capabilities.length && caps.every((c, i) => c === this.#capabilities[i]))
      return;
    this.#capabilities = [...caps];
    this.#logger.info({ capabilities: this.#capabilities }, "capabilities changed, re-registering");
    if (this.#started && !this.#stopped) this.#requestRegister();
  }

  #request(): RegisterRequest {
    const o = this.#opts;
    return {
      node_name: o.nodeName,
      advertise_address: o.advertiseAddress,
      zone: o.zone,
      labels: { ...o.labels },
      capabilities: [...this.#capabilities],
      http_port: o.ports.httpPort,
      udp_port: o.ports.udpPort,
      metrics_port: o.ports.metricsPort,
      version: o.version,
      agent_id: this.#agentId,
    };
  }

  /** Registers now, unless an attempt is running (then once more after it) or a retry is already scheduled. */
  #requestRegister(): void {
    if (this.#stopped || this.#retryTimer !== undefined) return;
    if (this.#inFlight) {
      this.#again = true;
      return;
    }
    this.#inFlight = true;
    this.#again = false;
    const deadline = Date.now() + (this.#opts.callTimeoutMs ?? 5000);
    this.#client.Register(this.#request(), { deadline }, (err, res) => {
      this.#inFlight = false;
      if (this.#stopped) return;
      if (err || !res) {
        this.#logger.warn({ err: err?.message, attempt: this.#attempt }, "registration failed");
        this.#scheduleRetry();
        return;
      }
      this.#registeredOnce = true;
      this.#zone = res.zone;
      this.#logger.info({ agentId: this.#agentId, zone: res.zone }, "registered with controller");
      if (this.#again) {
        this.#requestRegister();
        return;
      }
      this.#ensureWatch();
    });
  }

  #scheduleRetry(): void {
    if (this.#stopped || this.#retryTimer !== undefined) return;
    this.#again = false;
    const delay = backoffDelay(this.#attempt++, this.#backoff);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#requestRegister();
    }, delay);
  }

  #ensureWatch(): void {
    if (this.#watch !== undefined || this.#stopped) return;
    // Opt in to deltas; the first message of each stream is a full list, so a new stream starts from scratch.
    const watch = this.#client.WatchPeers({ agent_id: this.#agentId, incremental: true });
    this.#watch = watch;
    const held = new Map<string, PeerMessage>();
    watch.on("data", (list: PeerList) => {
      this.#attempt = 0;
      this.#ready = true;
      applyPeerList(held, list, this.#agentId);
      const peers = [...held.values()].sort(byNodeThenId).map(peerFromMessage);
      const planned = list.sparse ? [...list.planned] : undefined;
      const zone = list.zone !== "" ? list.zone : this.#zone;
      for (const l of this.#listeners) l(peers, planned, zone);
    });
    const broken = (why: string): void => {
      if (this.#watch !== watch) return;
      this.#watch = undefined;
      if (this.#stopped) return;
      this.#logger.warn({ why }, "peer watch broken, reconnecting");
      this.#scheduleRetry();
    };
    watch.on("error", (err: Error) => broken(err.message));
    watch.on("end", () => broken("stream ended"));
  }

  #heartbeat(): void {
    if (this.#stopped || !this.#registeredOnce || this.#inFlight || this.#retryTimer !== undefined) return;
    const deadline = Date.now() + (this.#opts.callTimeoutMs ?? 5000);
    this.#client.Heartbeat({ agent_id: this.#agentId }, { deadline }, (err, res) => {
      if (this.#stopped) return;
      if (err) {
        this.#logger.debug({ err: err.message }, "heartbeat failed");
        return;
      }
      if (res && !res.known) {
        this.#logger.warn({ agentId: this.#agentId }, "controller forgot this agent, re-registering");
        this.#requestRegister();
      }
    });
  }
}
