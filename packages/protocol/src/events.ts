import type * as proto from "./generated/svc.ts";

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
