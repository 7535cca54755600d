import type * as grpc from "@grpc/grpc-js";
import { loadService } from "./grpc.ts";

/** svc.v1.Task: one one-shot diagnostic for an agent (longs as numbers). */
export interface TaskMessage {
  task_id: string;
  type: string;
  destination: string;
  destination_kind: string;
  address: string;
  port: number;
  timeout_ns: number;
  params_json: string;
}
/** svc.v1.TaskResult */
export interface TaskResultMessage {
  agent_id: string;
  task_id: string;
  success: boolean;
  error: string;
  duration_ns: number;
  details_json: string;
  timestamp_unix_ns: number;
}
export interface WatchTasksRequest {
  agent_id: string;
}
export type TaskResultAck = Record<string, never>;

/** Server-side handlers of svc.v1.TaskService. */
export interface TaskServiceHandlers extends grpc.UntypedServiceImplementation {
  WatchTasks: grpc.handleServerStreamingCall<WatchTasksRequest, TaskMessage>;
  ReportTaskResult: grpc.handleUnaryCall<TaskResultMessage, TaskResultAck>;
}

/** Client stub of svc.v1.TaskService. */
export interface TaskServiceClient extends grpc.Client {
  WatchTasks(req: WatchTasksRequest, opts?: grpc.CallOptions): grpc.ClientReadableStream<TaskMessage>;
  ReportTaskResult(
    req: TaskResultMessage,
    opts: grpc.CallOptions,
    cb: (err: grpc.ServiceError | null, res?: TaskResultAck) => void,
  ): grpc.ClientUnaryCall;
}

export function taskServiceDefinition(): grpc.ServiceDefinition {
  return loadService<TaskServiceClient>("TaskService").service;
}

export function createTaskServiceClient(
  address: string,
  credentials: grpc.ChannelCredentials,
  options?: grpc.ClientOptions,
): TaskServiceClient {
  const Ctor = loadService<TaskServiceClient>("TaskService");
  return new Ctor(address, credentials, options);
}
