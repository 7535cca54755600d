import type { EventType } from "@svc/protocol";

/**
 * Event topics, each with its own sequence numbers (1, 2, 3, ... per topic, per controller process):
 * - `topology`: TopologyChanged (agents and nodes joining, leaving, changing readiness)
 * - `checks`: CheckObserved (terminal event of every non-mtr diagnostic that produced a result)
 * - `mtr`: MTRTriggered, MTRCompleted
 * - `diagnostics`: DiagnosticProgress (e.g. state `undelivered` when a diagnostic's answer could not be written)
 */
export const EVENT_TOPICS = ["topology", "checks", "mtr", "diagnostics"] as const;
export type EventTopic = (typeof EVENT_TOPICS)[number];

/** The topic each event type is published on. */
export const TOPIC_OF: Record<EventType, EventTopic> = {
  TopologyChanged: "topology",
  CheckObserved: "checks",
  MTRTriggered: "mtr",
  MTRCompleted: "mtr",
  DiagnosticProgress: "diagnostics",
};

export type EventSeverity = "info" | "warn" | "error";

/** What a publisher hands the bus; topic, sequence number and timestamp are assigned by the bus. */
export interface DomainEvent {
  type: EventType;
  severity: EventSeverity;
  /** e.g. "node-1->node-2" for a check, "node-3" for a topology change */
  scope: string;
  /** type-specific body, serialised as `payload_json` */
  payload: Record<string, unknown>;
}

/** Where domain events go; the diagnostics route and the topology feed publish through this. */
export interface EventPublisher {
  publish(event: DomainEvent): void;
}
