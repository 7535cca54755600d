import { createRequire } from "node:module";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";

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
export interface PeerList {
  peers: PeerMessage[];
  sparse: boolean;
  planned: string[];
  zone: string;
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

type ServiceName = "AgentService" | "TaskService" | "ExternalCheckService" | "EventService";
let cached: Record<ServiceName, unknown> | undefined;

/** The svc.v1 services loaded from the .proto (once per process). */
export function loadService<C>(name: ServiceName): ServiceCtor<C> {
  if (!cached) {
    const def = protoLoader.loadSync(PROTO_PATH, {
      keepCase: true,
      longs: Number,
      enums: String,
      defaults: true,
      arrays: true,
      objects: true,
      oneofs: true,
    });
    const pkg = grpc.loadPackageDefinition(def) as unknown as { svc: { v1: Record<ServiceName, unknown> } };
    cached = pkg.svc.v1;
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
