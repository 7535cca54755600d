export {
  DEFAULT_TASK_PROBE_TIMEOUTS,
  executeTask,
  type TaskExecutionOptions,
  type TaskOutcome,
  timedTask,
} from "./execute-task.ts";
export { AgentTaskRunner, type AgentTaskRunnerOptions } from "./task-runner.ts";
