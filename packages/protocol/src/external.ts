import type * as grpc from "@grpc/grpc-js";
import { loadService } from "./grpc.ts";

/** svc.v1.ExternalTarget */
export interface ExternalTargetMessage {
  name: string;
  kind: string;
  address: string;
  port: number;
}
/** svc.v1.ExternalCheckSpec (longs as numbers) */
export interface ExternalCheckSpecMessage {
  definition_id: string;
  target: ExternalTargetMessage | null;
  check_type: string;
  interval_ns: number;
  timeout_ns: number;
  params_json: string;
}
export interface ExternalCheckAssignment {
  specs: ExternalCheckSpecMessage[];
}
export interface WatchExternalChecksRequest {
  agent_id: string;
}

/** Server-side handlers of svc.v1.ExternalCheckService. */
export interface ExternalCheckServiceHandlers extends grpc.UntypedServiceImplementation {
  WatchExternalChecks: grpc.handleServerStreamingCall<WatchExternalChecksRequest, ExternalCheckAssignment>;
}

/** Client stub of svc.v1.ExternalCheckService. */
export interface ExternalCheckServiceClient extends grpc.Client {
  WatchExternalChecks(
    req: WatchExternalChecksRequest,
    opts?: grpc.CallOptions,
  ): grpc.ClientReadableStream<ExternalCheckAssignment>;
}

export function externalCheckServiceDefinition(): grpc.ServiceDefinition {
  return loadService<ExternalCheckServiceClient>("ExternalCheckService").service;
}

export function createExternalCheckServiceClient(
  address: string,
  credentials: grpc.ChannelCredentials,
  options?: grpc.ClientOptions,
): ExternalCheckServiceClient {
  const Ctor = loadService<ExternalCheckServiceClient>("ExternalCheckService");
  return new Ctor(address, credentials, options);
}
