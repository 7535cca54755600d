import { createRequire } from "node:module";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { encodePeerList } from "./peer-list-wire.ts";

/** Absolute path of the wire contract. */
export const PROTO_PATH = createRequire(import.meta.url).resolve("@svc/protocol/proto/svc.proto");

/** Messages as @grpc/proto-loader delivers them (keepCase, defaults, enums as strings, longs as numbers). */
export interface RegisterRequest {
  node_name: string;
  advertise_address: string;
  zone: string;
  labels: Record<string, string>;
  capabilities: string[];
  http_port: number;
  udp_port: number;
  metrics_port: number;
  version: string;
  agent_id: string;
}
export interface RegisterResponse {
  agent_id: string;
  zone: string;
  http_port: number;
  udp_port: number;
}
export interface HeartbeatRequest {
  agent_id: string;
}
export interface HeartbeatResponse {
  known: boolean;
}
export interface DeregisterRequest {
  agent_id: string;
}
export type DeregisterResponse = Record<string, never>;
export interface WatchPeersRequest {
  agent_id: string;
  /** the watcher applies deltas (`PeerList.delta`); absent/false: full lists only (agents before deltas) */
  incremental?: boolean;
}
export interface PeerMessage {
  agent_id: string;
  node_name: string;
  address: string;
  zone: string;
  labels: Record<string, string>;
  capabilities: string[];
  http_port: number;
  udp_port: number;
}
/**
 * A WatchPeers message. `delta` false (always the first message of a stream): `peers` is the whole list. `delta`
 * true (only to watchers that asked for `incremental`): `peers` are upserts by agent_id, `removed` the agent ids
 * gone; `sparse`, `planned` and `zone` are complete in every message. Senders may omit `delta`/`removed` (full).
 */
export interface PeerList {
  peers: PeerMessage[];
  sparse: boolean;
  planned: string[];
  zone: string;
  delta?: boolean;
  removed?: string[];
}

/** Server-side handlers of svc.v1.AgentService. */
export interface AgentServiceHandlers extends grpc.UntypedServiceImplementation {
  Register: grpc.handleUnaryCall<RegisterRequest, RegisterResponse>;
  Heartbeat: grpc.handleUnaryCall<HeartbeatRequest, HeartbeatResponse>;
  Deregister: grpc.handleUnaryCall<DeregisterRequest, DeregisterResponse>;
  WatchPeers: grpc.handleServerStreamingCall<WatchPeersRequest, PeerList>;
}

/** Client stub of svc.v1.AgentService. */
export interface AgentServiceClient extends grpc.Client {
  Register(
    req: RegisterRequest,
    opts: grpc.CallOptions,
    cb: (err: grpc.ServiceError | null, res?: RegisterResponse) => void,
  ): grpc.ClientUnaryCall;
  Heartbeat(
    req: HeartbeatRequest,
    opts: grpc.CallOptions,
    cb: (err: grpc.ServiceError | null, res?: HeartbeatResponse) => void,
  ): grpc.ClientUnaryCall;
  Deregister(
    req: DeregisterRequest,
    opts: grpc.CallOptions,
    cb: (err: grpc.ServiceError | null, res?: DeregisterResponse) => void,
  ): grpc.ClientUnaryCall;
  WatchPeers(req: WatchPeersRequest, opts?: grpc.CallOptions): grpc.ClientReadableStream<PeerList>;
}

interface ServiceCtor<C> {
  new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ClientOptions): C;
  service: grpc.ServiceDefinition;
}

/** How the .proto is loaded: snake_case fields as in the file, 64-bit integers as numbers, enums as names. */
export const PROTO_LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  arrays: true,
  objects: true,
  oneofs: true,
};

type ServiceName = "AgentService" | "TaskService" | "ExternalCheckService" | "EventService";
let cached: Record<ServiceName, unknown> | undefined;

/** The svc.v1 services loaded from the .proto (once per process). */
export function loadService<C>(name: ServiceName): ServiceCtor<C> {
  if (!cached) {
    const def = protoLoader.loadSync(PROTO_PATH, PROTO_LOADER_OPTIONS);
    const pkg = grpc.loadPackageDefinition(def) as unknown as { svc: { v1: Record<ServiceName, unknown> } };
    cached = pkg.svc.v1;
    // Peer lists are the controller's bulk traffic: encode them with the fast path that reuses each peer's
    // encoding (withPeerWire) instead of protobuf.js object conversion per watcher. Same bytes on the wire.
    const watch = (cached.AgentService as ServiceCtor<AgentServiceClient>).service.WatchPeers;
    if (watch !== undefined) watch.responseSerialize = (value: PeerList) => encodePeerList(value);
  }
  return cached[name] as ServiceCtor<C>;
}

function load(): ServiceCtor<AgentServiceClient> {
  return loadService<AgentServiceClient>("AgentService");
}

/** The service definition to add to a grpc.Server. */
export function agentServiceDefinition(): grpc.ServiceDefinition {
  return load().service;
}

/** A client for svc.v1.AgentService at host:port. */
export function createAgentServiceClient(
  address: string,
  credentials: grpc.ChannelCredentials = grpc.credentials.createInsecure(),
  options?: grpc.ClientOptions,
): AgentServiceClient {
  const Ctor = load();
  return new Ctor(address, credentials, options);
}

export { grpc };
