import {
  type BackoffPolicy,
  type ControllerChannel,
  controllerChannel,
  ReconnectingStream,
} from "@svc/controller-client";
import { defaultConfig } from "@svc/core";
import {
  createTaskServiceClient,
  type grpc,
  type TaskMessage,
  type TaskResultMessage,
  type TaskServiceClient,
} from "@svc/protocol";
import type { ProbeClock } from "../clock/probe-clock.ts";
import { type Logger, silentLogger } from "../registration/logger.ts";
import { defaultProbers } from "../scheduler/probers.ts";
import { type TaskCheckers, type TaskExecutionOptions, type TaskOutcome, timedTask } from "./execute-task.ts";
import { type AdmitExternal, gateExternalTask } from "./external-gate.ts";

/** How often the runner looks again for a completed registration, ms. */
const NOT_REGISTERED_POLL_MS = 250;

export interface AgentTaskRunnerOptions extends Partial<Pick<TaskExecutionOptions, "probers">> {
  /** host:port of the controller's gRPC listener */
  controllerAddress: string;
  /** default: insecure */
  credentials?: grpc.ChannelCredentials;
  /** client interceptors of every call (the ServiceAccount token: bearerInterceptor) */
  interceptors?: grpc.Interceptor[];
  /** the agent id currently registered ("" = none yet); e.g. `() => registration.agentId()` */
  agentId: () => string;
  /** whether registration completed; the watch opens only once true; e.g. `() => registration.ready()` */
  registered?: () => boolean;
  /** own ports, the fallbacks for tasks to a node destination with port 0 */
  ports: TaskExecutionOptions["ports"];
  /**
   * the agent's checkers.* now; read when each task starts, so a hot-reloaded configuration applies to the next
   * diagnostic (e.g. `() => liveCheckers`, replaced by the ConfigWatcher's onApply); default the spec §8.2 defaults
   */
  checkers?: () => TaskCheckers;
  /** reconnect backoff; default REGISTER_BACKOFF (2 s doubling to 30 s, 25% jitter) */
  backoff?: BackoffPolicy;
  /** timers of the reconnecting stream; default timerClock */
  clock?: ProbeClock;
  /**
   * the allowlist gate of diagnostics to external destinations (ExternalCheckRunner.admitDiagnostic); without it
   * every such task is refused before any packet is sent
   */
  admitExternal?: AdmitExternal;
  /** tasks run at once; more are answered failed "agent busy"; default 64 */
  maxConcurrent?: number;
  logger?: Logger;
}

/**
 * The agent's one-shot diagnostics executor. It opens TaskService.WatchTasks with the current agent id once
 * registered, runs every task it receives concurrently with the agent's probes (executeTask; a task to an external
 * destination only when `admitExternal` admits it, external-gate.ts), and reports each
 * TaskResult (details_json = the details object, timestamp = agent clock). The stream is kept open by
 * ReconnectingStream (backoff, reset and leader rules there); while the agent is not registered it looks again
 * every 250 ms.
 *
 * Wiring (apps/agent main): `const tasks = new AgentTaskRunner({ controllerAddress, credentials,
 * agentId: () => registration.agentId(), registered: () => registration.ready(),
 * ports: { httpPort, udpPort: grpcPort }, probers: { ...defaultProbers(), icmp }, checkers: () => liveCheckers,
 * logger })` (`liveCheckers` replaced on every applied reload); `tasks.start()` after `registration.start()`;
 * `await tasks.stop()` before `registration.stop()`.
 */
export class AgentTaskRunner {
  readonly #o: AgentTaskRunnerOptions;
  readonly #exec: Omit<TaskExecutionOptions, "checkers">;
  readonly #checkers: () => TaskCheckers;
  readonly #logger: Logger;
  readonly #channel: ControllerChannel<TaskServiceClient>;
  readonly #stream: ReconnectingStream<TaskMessage>;
  readonly #running = new Set<Promise<void>>();
  #watchingAs = "";
  #started = false;
  #stopped = false;

  constructor(opts: AgentTaskRunnerOptions) {
    this.#o = opts;
    this.#logger = opts.logger ?? silentLogger;
    this.#exec = {
      probers: opts.probers ?? defaultProbers(),
      ports: opts.ports,
    };
    if (opts.checkers) this.#checkers = opts.checkers;
    else {
      const defaults = defaultConfig("agent").checkers;
      this.#checkers = () => defaults;
    }
    this.#channel = controllerChannel(
      createTaskServiceClient,
      opts.controllerAddress,
      opts.credentials,
      opts.interceptors,
    );
    this.#stream = new ReconnectingStream<TaskMessage>({
      name: "task stream",
      open: () => this.#open(),
      onMessage: (task) => this.#run(task),
      onConnected: () => this.#logger.info({ agentId: this.#watchingAs }, "task stream open"),
      channel: this.#channel,
      notReadyPollMs: NOT_REGISTERED_POLL_MS,
      logger: this.#logger,
      ...(opts.backoff ? { backoff: opts.backoff } : {}),
      ...(opts.clock ? { clock: opts.clock } : {}),
    });
  }

  /** Starts watching for tasks (in the background). */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#stream.start();
  }

  /** Closes the task stream, waits for running tasks to report (at most ~2 s), and closes the client. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#stream.stop();
    await Promise.race([Promise.all(this.#running), new Promise((r) => setTimeout(r, 2000).unref())]);
    this.#channel.close();
  }

  /** True while a task stream is open and acknowledged by the controller. */
  connected(): boolean {
    return this.#stream.connected();
  }

  /** Tasks currently running. */
  get running(): number {
    return this.#running.size;
  }

  /** Opens WatchTasks as the registered agent; undefined while not registered (the stream looks again). */
  #open(): grpc.ClientReadableStream<TaskMessage> | undefined {
    const id = this.#o.agentId();
    if (id === "" || !(this.#o.registered?.() ?? true)) return undefined;
    this.#watchingAs = id;
    return this.#channel.get().WatchTasks({ agent_id: id });
  }

  #run(task: TaskMessage): void {
    const agentId = this.#watchingAs;
    if (this.#running.size >= (this.#o.maxConcurrent ?? 64)) {
      this.#report(result(agentId, task, { success: false, error: "agent busy", durationNs: 0 }));
      return;
    }
    const p = this.#execute(task).then((outcome) => this.#report(result(agentId, task, outcome)));
    this.#running.add(p);
    void p.finally(() => this.#running.delete(p));
  }

  /** Runs a task that passed the external gate; a refused one fails at once, nothing sent. */
  async #execute(task: TaskMessage): Promise<TaskOutcome & { durationNs: number }> {
    const gate = await gateExternalTask(task, this.#o.admitExternal);
    if ("refused" in gate) return { ...gate.refused, durationNs: 0 };
    return timedTask(gate.task, { ...this.#exec, checkers: this.#checkers() });
  }

  #report(r: TaskResultMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.#channel.closed()) {
        this.#logger.warn({ taskId: r.task_id }, "task result not reported: runner stopped");
        resolve();
        return;
      }
      this.#channel.get().ReportTaskResult(r, { deadline: Date.now() + 5000 }, (err) => {
        if (err) this.#logger.warn({ taskId: r.task_id, err: err.message }, "task result not reported");
        resolve();
      });
    });
  }
}

function result(
  agentId: string,
  task: TaskMessage,
  o: { success: boolean; error: string; details?: Record<string, unknown>; durationNs: number },
): TaskResultMessage {
  return {
    agent_id: agentId,
    task_id: task.task_id,
    success: o.success,
    error: o.error,
    duration_ns: o.durationNs,
    details_json: o.details === undefined ? "" : JSON.stringify(o.details),
    timestamp_unix_ns: Date.now() * 1_000_000,
  };
}
