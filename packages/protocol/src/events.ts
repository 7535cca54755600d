import type * as grpc from "@grpc/grpc-js";
import * as proto from "./generated/svc.ts";
import {
  protoNamedDefinition,
  type ServiceClientMethods,
  type ServiceHandlers,
  serviceClientFactory,
} from "./grpc.ts";

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
export type EventMessage = proto.Event;
export type SubscribeEventsRequest = proto.SubscribeEventsRequest;

const eventService = protoNamedDefinition(proto.EventServiceService);

/** Server-side handlers of svc.v1.EventService. */
export interface EventServiceHandlers
  extends grpc.UntypedServiceImplementation,
    ServiceHandlers<typeof eventService> {}

/** Client stub of svc.v1.EventService. */
export interface EventServiceClient extends grpc.Client, ServiceClientMethods<typeof eventService> {}

export function eventServiceDefinition(): typeof eventService {
  return eventService;
}

/** A client for svc.v1.EventService at host:port. */
export const createEventServiceClient = serviceClientFactory<EventServiceClient>(
  eventService,
  "svc.v1.EventService",
);
