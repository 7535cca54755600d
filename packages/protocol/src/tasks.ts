import type * as proto from "./generated/svc.ts";

/** svc.v1.Task: one one-shot diagnostic for an agent (longs as numbers). */
export type TaskMessage = proto.Task;
/** svc.v1.TaskResult */
export type TaskResultMessage = proto.TaskResult;
export type WatchTasksRequest = proto.WatchTasksRequest;
export type TaskResultAck = proto.TaskResultAck;
