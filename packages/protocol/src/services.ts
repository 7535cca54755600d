/**
 * The svc.v1 services as grpc-js takes them: definitions keyed by the .proto method names, handler and client
 * types, and client factories (insecure credentials unless given).
 */
import * as proto from "./generated/svc.ts";
import {
  type ClientOf,
  type HandlersOf,
  type PeerList,
  protoNamedDefinition,
  serviceClientFactory,
  type WatchPeersRequest,
} from "./grpc.ts";
import { encodePeerList } from "./peer-list-wire.ts";

const generatedAgentService = protoNamedDefinition(proto.AgentServiceService);

const definitions = {
  agent: {
    ...generatedAgentService,
    WatchPeers: {
      ...generatedAgentService.WatchPeers,
      requestSerialize: (value: WatchPeersRequest): Buffer =>
        Buffer.from(
          proto.WatchPeersRequest.encode({ ...value, incremental: value.incremental === true }).finish(),
        ),
      // Peer lists are the controller's bulk traffic: encode them with the fast path that reuses each peer's
      // encoding (withPeerWire) instead of encoding every peer again per watcher. Same bytes on the wire
      // (peer-list-wire.test.ts checks every field of the schema).
      responseSerialize: (value: PeerList): Buffer => encodePeerList(value),
    },
  },
  task: protoNamedDefinition(proto.TaskServiceService),
  externalCheck: protoNamedDefinition(proto.ExternalCheckServiceService),
  event: protoNamedDefinition(proto.EventServiceService),
  pairState: protoNamedDefinition(proto.PairStateServiceService),
};
type Definitions = typeof definitions;

export type AgentServiceHandlers = HandlersOf<Definitions["agent"]>;
export type TaskServiceHandlers = HandlersOf<Definitions["task"]>;
export type ExternalCheckServiceHandlers = HandlersOf<Definitions["externalCheck"]>;
export type EventServiceHandlers = HandlersOf<Definitions["event"]>;
export type PairStateServiceHandlers = HandlersOf<Definitions["pairState"]>;

export type AgentServiceClient = ClientOf<Definitions["agent"]>;
export type TaskServiceClient = ClientOf<Definitions["task"]>;
export type ExternalCheckServiceClient = ClientOf<Definitions["externalCheck"]>;
export type EventServiceClient = ClientOf<Definitions["event"]>;
export type PairStateServiceClient = ClientOf<Definitions["pairState"]>;

/** The definitions to add to a grpc.Server. */
export const agentServiceDefinition = (): Definitions["agent"] => definitions.agent;
export const taskServiceDefinition = (): Definitions["task"] => definitions.task;
export const externalCheckServiceDefinition = (): Definitions["externalCheck"] => definitions.externalCheck;
export const eventServiceDefinition = (): Definitions["event"] => definitions.event;
export const pairStateServiceDefinition = (): Definitions["pairState"] => definitions.pairState;

/** Clients at host:port. */
export const createAgentServiceClient = serviceClientFactory<AgentServiceClient>(definitions.agent);
export const createTaskServiceClient = serviceClientFactory<TaskServiceClient>(definitions.task);
export const createExternalCheckServiceClient = serviceClientFactory<ExternalCheckServiceClient>(
  definitions.externalCheck,
);
export const createEventServiceClient = serviceClientFactory<EventServiceClient>(definitions.event);
export const createPairStateServiceClient = serviceClientFactory<PairStateServiceClient>(
  definitions.pairState,
);
