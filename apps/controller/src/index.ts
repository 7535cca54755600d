export { NOT_LEADER_BODY } from "./api/http-api.ts";
export { topologyAgent, topologySnapshot } from "./api/topology.ts";
export { CONTROLLER_USAGE, controllerCommand } from "./cli.ts";
export { Controller, type ControllerOptions } from "./controller.ts";
export { buildCheckResult, type CheckResult } from "./diagnostics/check-result.ts";
export {
  DIAGNOSTICS_BODY_LIMIT,
  type DiagnosticRequest,
  PROBE_TYPES,
  type ProbeType,
  parseDiagnosticBody,
  parseTimeoutSeconds,
} from "./diagnostics/request.ts";
export { type DiagnosticsResult, registerDiagnosticsRoute } from "./diagnostics/route.ts";
export { EventBus, type EventBusOptions } from "./events/event-bus.ts";
export { EVENTS_DISABLED, EVENTS_NOT_LEADER, eventServiceHandlers } from "./events/event-service.ts";
export {
  type DomainEvent,
  EVENT_TOPICS,
  type EventPublisher,
  type EventTopic,
  TOPIC_OF,
} from "./events/topics.ts";
export { TopologyEvents } from "./events/topology-events.ts";
export * from "./external/index.ts";
export * from "./gateway/index.ts";
export { peerMessage } from "./grpc/peer-message.ts";
export { AgentGuard, type AgentGuardOptions } from "./identity/agent-guard.ts";
export type { CallerIdentity, ReviewedPod } from "./identity/caller.ts";
export { type AgentTokenReviewer, KubernetesTokenReviewer } from "./identity/token-review.ts";
export * from "./leader/index.ts";
export type { Logger } from "./logger.ts";
export { type RunControllerOptions, runController } from "./main.ts";
export {
  DEFAULT_FAILURE_DOMAIN_LABEL,
  KubernetesNodeSource,
  type KubernetesNodeSourceOptions,
} from "./nodes/kubernetes-node-source.ts";
export type { NodeSource } from "./nodes/node-source.ts";
export { RegistrationNodeSource } from "./nodes/registration-node-source.ts";
export * from "./planner/index.ts";
export type { RegisteredAgent, Registration } from "./registry/agent.ts";
export { AgentRegistry, isExternalAgent, type RegistryChange } from "./registry/registry.ts";
export { validateRegistration } from "./registry/validate.ts";
export * from "./sd/index.ts";
export {
  type DispatchFailure,
  type DispatchOutcome,
  TaskDispatcher,
  type TaskStream,
} from "./tasks/task-dispatcher.ts";
export { taskServiceHandlers } from "./tasks/task-service.ts";
export { type PeerWatch, RawAgentClient, registerRequest } from "./testing/raw-client.ts";
export { testConfig } from "./testing/test-config.ts";
export { waitUntil } from "./testing/wait-until.ts";
