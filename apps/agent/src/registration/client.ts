import { randomUUID } from "node:crypto";
import {
  type BackoffPolicy,
  type ControllerChannel,
  controllerChannel,
  ReconnectingStream,
} from "@svc/controller-client";
import {
  type AgentServiceClient,
  applyPeerList,
  byNodeThenId,
  createAgentServiceClient,
  type grpc,
  type Peer,
  type PeerList,
  type PeerMessage,
  peerFromMessage,
  type RegisterRequest,
  type RegisterResponse,
} from "@svc/protocol";
import { type ClockEntry, type ProbeClock, timerClock } from "../clock/probe-clock.ts";
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
  /** client interceptors of every call (the ServiceAccount token: bearerInterceptor) */
  interceptors?: grpc.Interceptor[];
  /** default: a random UUID, kept for the life of the client */
  agentId?: string;
  /** default 5000 */
  heartbeatIntervalMs?: number;
  /** default REGISTER_BACKOFF (2 s doubling to 30 s, 25% jitter) */
  backoff?: BackoffPolicy;
  /** timers of the reconnecting peer watch; default timerClock */
  clock?: ProbeClock;
  /** deadline of each unary call, ms; default 5000 */
  callTimeoutMs?: number;
  /**
   * After a reconnect, how long peers of the previous stream missing from the new lists are still handed out,
   * ms; default RECONNECT_GRACE_MS. See RegistrationClient.
   */
  reconnectGraceMs?: number;
}

/**
 * A controller that restarted fills its registry again as agents reconnect (its warm-up lasts one agent TTL,
 * default 30 s): the first lists it sends are short. Peers of the previous stream stay for this long unless the
 * new lists name their node, so a restart does not cut the probe series of peers that are only late to return.
 */
export const RECONNECT_GRACE_MS = 30_000;

/**
 * The agent's side of registration: registers, heartbeats, watches peers, and deregisters on stop. Each attempt of
 * the peer watch (a ReconnectingStream: backoff, reset and leader rules there) registers first, then opens
 * WatchPeers; so the agent re-registers whenever the peer stream breaks, and, by replacing the stream at once,
 * when the controller forgets it (heartbeat `known: false`) and when capabilities change. Only the zone is adopted
 * from the controller's reply.
 *
 * Across a reconnect the last peers are kept probing: while the controller is unreachable nothing changes, and for
 * `reconnectGraceMs` after a new stream opened, a peer of the previous stream whose node the new lists do not name
 * is still handed out (and, in sparse mode, still planned), so a restarted controller's short first lists do not
 * remove series of peers that simply have not re-registered yet. When the grace ends the lists are handed out as
 * the controller sends them.
 */
export class RegistrationClient {
  readonly #opts: RegistrationClientOptions;
  readonly #logger: Logger;
  readonly #channel: ControllerChannel<AgentServiceClient>;
  readonly #stream: ReconnectingStream<PeerList>;
  readonly #agentId: string;
  readonly #listeners = new Set<PeersListener>();
  /** peers of the current stream, by agent id (each stream starts with a full list) */
  #held = new Map<string, PeerMessage>();
  /** peers of the previous stream still handed out during the reconnect grace, and which of them were planned */
  #carried = new Map<string, PeerMessage>();
  #carriedPlanned = new Set<string>();
  #graceTimer: ClockEntry | undefined;
  /** what the last list handed out (the carry-over of the next reconnect) */
  #lastPeers = new Map<string, PeerMessage>();
  #lastPlanned: Set<string> | undefined;
  #lastList: PeerList | undefined;
  #capabilities: string[];
  #zone = "";
  #ready = false;
  #started = false;
  #stopped = false;
  #registeredOnce = false;
  #heartbeatTimer: NodeJS.Timeout | undefined;

  constructor(opts: RegistrationClientOptions) {
    this.#opts = opts;
    this.#logger = opts.logger ?? silentLogger;
    this.#agentId = opts.agentId ?? randomUUID();
    this.#capabilities = [...opts.capabilities];
    this.#zone = opts.zone;
    this.#channel = controllerChannel(
      createAgentServiceClient,
      opts.controllerAddress,
      opts.credentials,
      opts.interceptors,
    );
    this.#stream = new ReconnectingStream<PeerList>({
      name: "peer watch",
      open: () => this.#registerAndWatch(),
      onMessage: (list) => this.#onList(list),
      channel: this.#channel,
      logger: this.#logger,
      ...(opts.backoff ? { backoff: opts.backoff } : {}),
      ...(opts.clock ? { clock: opts.clock } : {}),
    });
  }

  /** Starts registering (in the background) and heartbeating. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#heartbeatTimer = setInterval(() => this.#heartbeat(), this.#opts.heartbeatIntervalMs ?? 5000);
    this.#stream.start();
  }

  /** Stops everything and deregisters (best effort, at most ~2 s). */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    clearInterval(this.#heartbeatTimer);
    this.#graceTimer?.cancel();
    this.#stream.stop();
    if (this.#registeredOnce) {
      await new Promise<void>((resolve) => {
        this.#channel
          .get()
          .Deregister({ agent_id: this.#agentId }, { deadline: Date.now() + 2000 }, (err) => {
            if (err) this.#logger.warn({ err: err.message }, "deregister failed");
            resolve();
          });
      });
    }
    this.#channel.close();
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
    if (this.#started && !this.#stopped) this.#stream.reconnect();
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

  /** One attempt of the peer watch: Register (rejects on failure), then WatchPeers with deltas. */
  async #registerAndWatch(): Promise<grpc.ClientReadableStream<PeerList>> {
    const client = this.#channel.get();
    const deadline = Date.now() + (this.#opts.callTimeoutMs ?? 5000);
    const res = await new Promise<RegisterResponse>((resolve, reject) =>
      client.Register(this.#request(), { deadline }, (err, r) => {
        if (err || !r) {
          this.#logger.warn({ err: err?.message }, "registration failed");
          reject(err ?? new Error("empty registration reply"));
        } else {
          resolve(r);
        }
      }),
    );
    this.#registeredOnce = true;
    this.#zone = res.zone;
    this.#logger.info({ agentId: this.#agentId, zone: res.zone }, "registered with controller");
    this.#held = new Map();
    this.#lastList = undefined;
    this.#startGrace();
    // Opt in to deltas; the first message of each stream is a full list, so a new stream starts from scratch.
    return client.WatchPeers({ agent_id: this.#agentId, incremental: true });
  }

  /** A new stream: what the last list handed out is carried for the grace (nothing on the first stream). */
  #startGrace(): void {
    if (this.#lastPeers.size === 0) return;
    this.#carried = new Map(this.#lastPeers);
    this.#carriedPlanned = new Set(
      [...this.#carried.values()].map((p) => p.node_name).filter((n) => this.#lastPlanned?.has(n) ?? true),
    );
    this.#graceTimer?.cancel();
    const clock = this.#opts.clock ?? timerClock;
    this.#graceTimer = clock.schedule(
      clock.now() + (this.#opts.reconnectGraceMs ?? RECONNECT_GRACE_MS),
      () => {
        this.#graceTimer = undefined;
        this.#carried = new Map();
        this.#carriedPlanned = new Set();
        if (this.#lastList && !this.#stopped) this.#deliver(this.#lastList);
      },
    );
  }

  #onList(list: PeerList): void {
    this.#ready = true;
    applyPeerList(this.#held, list, this.#agentId);
    this.#lastList = list;
    this.#deliver(list);
  }

  /** Hands the held peers (plus those carried over a reconnect whose node is not named) to the listeners. */
  #deliver(list: PeerList): void {
    const out = new Map(this.#held);
    const named = new Set([...this.#held.values()].map((p) => p.node_name));
    const planned = list.sparse ? new Set(list.planned) : undefined;
    for (const [id, p] of this.#carried) {
      if (named.has(p.node_name) || id === this.#agentId) continue;
      out.set(id, p);
      if (planned && this.#carriedPlanned.has(p.node_name)) planned.add(p.node_name);
    }
    this.#lastPeers = out;
    this.#lastPlanned = planned;
    const peers = [...out.values()].sort(byNodeThenId).map(peerFromMessage);
    const zone = list.zone !== "" ? list.zone : this.#zone;
    for (const l of this.#listeners) l(peers, planned ? [...planned] : undefined, zone);
  }

  #heartbeat(): void {
    if (this.#stopped || !this.#registeredOnce || this.#stream.state() !== "streaming") return;
    const deadline = Date.now() + (this.#opts.callTimeoutMs ?? 5000);
    this.#channel.get().Heartbeat({ agent_id: this.#agentId }, { deadline }, (err, res) => {
      if (this.#stopped) return;
      if (err) {
        this.#logger.debug({ err: err.message }, "heartbeat failed");
        return;
      }
      if (res && !res.known) {
        this.#logger.warn({ agentId: this.#agentId }, "controller forgot this agent, re-registering");
        this.#stream.reconnect();
      }
    });
  }
}
