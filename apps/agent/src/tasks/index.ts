export {
  DEFAULT_TASK_PROBE_TIMEOUTS,
  executeTask,
  type TaskExecutionOptions,
  type TaskOutcome,
  timedTask,
} from "./execute-task.ts";
export { type AdmitExternal, type GateResult, gateExternalTask } from "./external-gate.ts";
export { AgentTaskRunner, type AgentTaskRunnerOptions } from "./task-runner.ts";
