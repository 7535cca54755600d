/**
 * Simulated agents over real gRPC: each registers, heartbeats every `heartbeatMs` and holds a WatchPeers stream
 * (incremental), like a real agent; they share a few channels (one HTTP/2 connection each) because a grpc-js
 * channel per simulated agent would measure the bench, not the controller.
 */
import {
  type AgentServiceClient,
  agentServiceDefinition,
  grpc,
  type RegisterRequest,
  type WatchPeersRequest,
} from "@svc/protocol";
import { type PeerWire, readPeerWire } from "./peer-wire.ts";

/** One simulated agent and the peers it holds (deltas applied), as a bitmap over the fleet's interned ids. */
export interface SimAgent {
  id: string;
  index: number;
  held: Uint8Array;
  /** number of peers held */
  count: number;
  sparse: boolean;
  planned: number;
  stream?: grpc.ClientReadableStream<Buffer>;
  heartbeat?: NodeJS.Timeout;
}

/** Called for every message any agent receives, after it is applied. */
export type FleetObserver = (agent: SimAgent, msg: PeerWire, at: number) => void;

interface RawClient extends Omit<AgentServiceClient, "WatchPeers"> {
  WatchPeers(req: WatchPeersRequest): grpc.ClientReadableStream<Buffer>;
}

export interface SimFleetStats {
  messages: number;
  fullLists: number;
  deltas: number;
  /** peer entries received in total (whole lists and upserts) */
  peerEntries: number;
  /** agent ids received in `removed` in total */
  removedEntries: number;
  bytes: number;
  heartbeatsFailed: number;
  heartbeatsUnknown: number;
  streamErrors: number;
}

export class SimFleet {
  readonly agents = new Map<string, SimAgent>();
  readonly stats: SimFleetStats = {
    messages: 0,
    fullLists: 0,
    deltas: 0,
    peerEntries: 0,
    removedEntries: 0,
    bytes: 0,
    heartbeatsFailed: 0,
    heartbeatsUnknown: 0,
    streamErrors: 0,
  };
  readonly #clients: RawClient[];
  readonly #observers = new Set<FleetObserver>();
  readonly #heartbeatMs: number;
  /** agent id -> small integer, shared by every simulated agent's bitmap */
  readonly #ids = new Map<string, number>();
  #capacity = 1024;
  #closed = false;

  constructor(address: string, channels: number, heartbeatMs = 5000) {
    const base = agentServiceDefinition();
    const watch = base.WatchPeers;
    if (watch === undefined) throw new Error("WatchPeers missing from the service definition");
    // Same service, but WatchPeers hands over the raw bytes (read by readPeerWire).
    const def: grpc.ServiceDefinition = {
      ...base,
      WatchPeers: { ...watch, responseDeserialize: (b: Buffer) => b },
    };
    const Ctor = grpc.makeGenericClientConstructor(def, "AgentService");
    this.#clients = Array.from(
      { length: channels },
      () =>
        new Ctor(address, grpc.credentials.createInsecure(), {
          "grpc.use_local_subchannel_pool": 1, // one connection per client, not one shared by all
          "grpc.max_receive_message_length": 64 * 1024 * 1024,
        }) as unknown as RawClient,
    );
    this.#heartbeatMs = heartbeatMs;
  }

  /** Adds an observer of every received message; returns the remover. */
  observe(o: FleetObserver): () => void {
    this.#observers.add(o);
    return () => this.#observers.delete(o);
  }

  /** The registration of simulated agent `index`. */
  registration(id: string, index: number): RegisterRequest {
    const zone = `zone-${index % 10}`;
    return {
      node_name: id,
      agent_id: id,
      advertise_address: `127.1.${Math.floor(index / 250) % 250}.${(index % 250) + 1}`,
      zone,
      labels: { "topology.kubernetes.io/zone": zone, "kubernetes.io/os": "linux" },
      capabilities: ["plane:tcp", "plane:udp", "plane:icmp", "plane:mtr", "plane:pmtu", "external-checks"],
      http_port: 8080,
      udp_port: 9090,
      metrics_port: 9091,
      version: "2.5.0",
    };
  }

  #client(index: number): RawClient {
    return this.#clients[index % this.#clients.length] as RawClient;
  }

  /** Registers one agent (resolves when the controller answered; rejects past `deadlineMs`). */
  register(id: string, index: number, deadlineMs = 30_000): Promise<SimAgent> {
    return new Promise((resolve, reject) => {
      this.#client(index).Register(
        this.registration(id, index),
        { deadline: Date.now() + deadlineMs },
        (err) => {
          if (err) {
            reject(err);
            return;
          }
          const agent = this.agents.get(id) ?? {
            id,
            index,
            held: new Uint8Array(this.#capacity),
            count: 0,
            sparse: false,
            planned: 0,
          };
          this.agents.set(id, agent);
          resolve(agent);
        },
      );
    });
  }

  /** Opens the agent's WatchPeers stream (incremental) and starts its heartbeat with a random phase. */
  watch(agent: SimAgent): void {
    const stream = this.#client(agent.index).WatchPeers({ agent_id: agent.id, incremental: true });
    agent.stream = stream;
    stream.on("data", (buf: Buffer) => {
      const msg = readPeerWire(buf);
      const s = this.stats;
      s.messages++;
      s.bytes += buf.length;
      s.peerEntries += msg.peers.length;
      s.removedEntries += msg.removed.length;
      if (msg.delta) {
        s.deltas++;
        for (const id of msg.removed) this.#set(agent, id, 0);
      } else {
        s.fullLists++;
        agent.held.fill(0);
        agent.count = 0;
      }
      for (const id of msg.peers) this.#set(agent, id, 1);
      agent.sparse = msg.sparse;
      agent.planned = msg.planned;
      const at = performance.now();
      for (const o of this.#observers) o(agent, msg, at);
    });
    stream.on("error", (err: grpc.ServiceError) => {
      if (!this.#closed && err.code !== grpc.status.CANCELLED) this.stats.streamErrors++;
    });
    this.heartbeat(agent);
  }

  /** Starts the agent's heartbeat (every heartbeatMs, random phase). */
  heartbeat(agent: SimAgent): void {
    const beat = (): void => {
      this.#client(agent.index).Heartbeat(
        { agent_id: agent.id },
        // the agents' own deadline
        { deadline: Date.now() + 5000 },
        (err, res) => {
          if (err) this.stats.heartbeatsFailed++;
          else if (res && !res.known) this.stats.heartbeatsUnknown++;
        },
      );
    };
    agent.heartbeat = setTimeout(() => {
      beat();
      agent.heartbeat = setInterval(beat, this.#heartbeatMs);
    }, Math.random() * this.#heartbeatMs);
  }

  /** Whether `agent` holds peer `id`. */
  holds(agent: SimAgent, id: string): boolean {
    const i = this.#ids.get(id);
    return i !== undefined && agent.held[i] === 1;
  }

  /** Reserves room for `n` distinct agent ids (call before registering, so bitmaps are not regrown). */
  reserve(n: number): void {
    this.#capacity = Math.max(this.#capacity, n);
  }

  #set(agent: SimAgent, id: string, v: 0 | 1): void {
    let i = this.#ids.get(id);
    if (i === undefined) {
      i = this.#ids.size;
      this.#ids.set(id, i);
    }
    if (i >= agent.held.length) {
      const grown = new Uint8Array(Math.max(i + 1, agent.held.length * 2));
      grown.set(agent.held);
      agent.held = grown;
    }
    if (agent.held[i] === v) return;
    agent.held[i] = v;
    agent.count += v === 1 ? 1 : -1;
  }

  /** Deregisters an agent and closes its stream. */
  deregister(id: string): Promise<void> {
    const agent = this.agents.get(id);
    if (agent !== undefined) this.#drop(agent);
    return new Promise((resolve, reject) => {
      this.#client(agent?.index ?? 0).Deregister(
        { agent_id: id },
        { deadline: Date.now() + 30_000 },
        (err) => (err ? reject(err) : resolve()),
      );
    });
  }

  #drop(agent: SimAgent): void {
    clearTimeout(agent.heartbeat);
    clearInterval(agent.heartbeat);
    agent.stream?.cancel();
    this.agents.delete(agent.id);
  }

  /** Stops every heartbeat and stream and closes the channels (no deregistration). */
  close(): void {
    this.#closed = true;
    for (const a of [...this.agents.values()]) this.#drop(a);
    for (const c of this.#clients) c.close();
  }
}
