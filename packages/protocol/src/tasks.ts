import type * as grpc from "@grpc/grpc-js";
import * as proto from "./generated/svc.ts";
import {
  protoNamedDefinition,
  type ServiceClientMethods,
  type ServiceHandlers,
  serviceClientFactory,
} from "./grpc.ts";

/** svc.v1.Task: one one-shot diagnostic for an agent (longs as numbers). */
export type TaskMessage = proto.Task;
/** svc.v1.TaskResult */
export type TaskResultMessage = proto.TaskResult;
export type WatchTasksRequest = proto.WatchTasksRequest;
export type TaskResultAck = proto.TaskResultAck;

const taskService = protoNamedDefinition(proto.TaskServiceService);

/** Server-side handlers of svc.v1.TaskService. */
export interface TaskServiceHandlers
  extends grpc.UntypedServiceImplementation,
    ServiceHandlers<typeof taskService> {}

/** Client stub of svc.v1.TaskService. */
export interface TaskServiceClient extends grpc.Client, ServiceClientMethods<typeof taskService> {}

export function taskServiceDefinition(): typeof taskService {
  return taskService;
}

/** A client for svc.v1.TaskService at host:port. */
export const createTaskServiceClient = serviceClientFactory<TaskServiceClient>(
  taskService,
  "svc.v1.TaskService",
);
