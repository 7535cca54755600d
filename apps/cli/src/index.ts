export { CHECK_USAGE, checkCommand, formatCheckResult } from "./check-command.ts";
export {
  type CheckResultBody,
  ControllerApiError,
  ControllerClient,
  type DiagnosticBody,
  resolveControllerUrl,
} from "./controller-client.ts";
export { main } from "./main.ts";
export { type CommandIo, outputFormat } from "./output-flag.ts";
export { TOPOLOGY_USAGE, topologyCommand } from "./topology-command.ts";
