export {
  executeTask,
  TASK_MTR_PROBE_TIMEOUT_MS,
  TASK_MTR_ROUNDS,
  type TaskCheckers,
  type TaskExecutionOptions,
  type TaskOutcome,
  taskTimeoutMs,
  timedTask,
} from "./execute-task.ts";
export { type AdmitExternal, type GateResult, gateExternalTask } from "./external-gate.ts";
export { AgentTaskRunner, type AgentTaskRunnerOptions } from "./task-runner.ts";
