import { grpc, type TaskMessage, type TaskServiceHandlers } from "@svc/protocol";
import { InvalidInputError, NotFoundError } from "../errors.ts";
import { quote } from "../grpc/echo.ts";
import { streamHandler, unaryHandler } from "../grpc/grpc-errors.ts";
import { type Logger, silentLogger } from "../logger.ts";
import type { TaskDispatcher } from "./task-dispatcher.ts";

export interface TaskServiceDeps {
  dispatcher: TaskDispatcher;
  logger?: Logger;
}

/**
 * svc.v1.TaskService. WatchTasks (INVALID_ARGUMENT without an agent id) sends response headers at once and makes
 * the stream the agent's active task stream until it closes. ReportTaskResult resolves the pending task;
 * NOT_FOUND when no such task is pending for that agent (already answered, timed out, or unknown).
 */
export function taskServiceHandlers(deps: TaskServiceDeps): TaskServiceHandlers {
  const logger = deps.logger ?? silentLogger;
  return {
    WatchTasks: streamHandler((call) => {
      const agentId = call.request.agent_id ?? "";
      if (agentId === "") throw new InvalidInputError("agent_id: required");
      let gone = false;
      call.sendMetadata(new grpc.Metadata());
      const detach = deps.dispatcher.attach(agentId, {
        write: (task: TaskMessage, cb) => {
          if (gone || call.cancelled || call.destroyed) throw new Error("stream closed");
          call.write(task, cb);
        },
        closed: () => gone || call.cancelled || call.destroyed,
        end: () => {
          gone = true;
          call.end();
        },
      });
      const done = (): void => {
        gone = true;
        detach();
      };
      call.on("cancelled", done);
      call.on("close", done);
      call.on("error", done);
      call.on("finish", done);
      logger.debug({ agentId }, "task stream opened");
    }),
    ReportTaskResult: unaryHandler((call) => {
      if (!deps.dispatcher.report(call.request))
        throw new NotFoundError(`no pending task ${quote(call.request.task_id)}`);
      return {};
    }),
  };
}
