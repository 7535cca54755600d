import type * as grpc from "@grpc/grpc-js";
import { loadService } from "./grpc.ts";

/** Domain event types (spec §6.1). */
export const EVENT_TYPES = [
  "TopologyChanged",
  "CheckObserved",
  "MTRTriggered",
  "MTRCompleted",
  "DiagnosticProgress",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** svc.v1.Event (longs as numbers) */
export interface EventMessage {
  topic: string;
  seq: number;
  type: string;
  timestamp_unix_ns: number;
  severity: string;
  scope: string;
  payload_json: string;
  missed: number;
}
export interface SubscribeEventsRequest {
  after: Record<string, number>;
}

/** Server-side handlers of svc.v1.EventService. */
export interface EventServiceHandlers extends grpc.UntypedServiceImplementation {
  Subscribe: grpc.handleServerStreamingCall<SubscribeEventsRequest, EventMessage>;
}

/** Client stub of svc.v1.EventService. */
export interface EventServiceClient extends grpc.Client {
  Subscribe(req: SubscribeEventsRequest, opts?: grpc.CallOptions): grpc.ClientReadableStream<EventMessage>;
}

export function eventServiceDefinition(): grpc.ServiceDefinition {
  return loadService<EventServiceClient>("EventService").service;
}

export function createEventServiceClient(
  address: string,
  credentials: grpc.ChannelCredentials,
  options?: grpc.ClientOptions,
): EventServiceClient {
  const Ctor = loadService<EventServiceClient>("EventService");
  return new Ctor(address, credentials, options);
}
