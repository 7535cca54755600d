import {
  createTaskServiceClient,
  grpc,
  type TaskMessage,
  type TaskResultMessage,
  type TaskServiceClient,
} from "@svc/protocol";
import { type BackoffPolicy, backoffDelay, REGISTER_BACKOFF } from "../registration/facts.ts";
import { type Logger, silentLogger } from "../registration/logger.ts";
import { defaultProbers } from "../scheduler/probers.ts";
import { type TaskExecutionOptions, timedTask } from "./execute-task.ts";

/** How often the runner looks again for a completed registration, ms. */
const NOT_REGISTERED_POLL_MS = 250;

export interface AgentTaskRunnerOptions extends Partial<Pick<TaskExecutionOptions, "probers">> {
  /** host:port of the controller's gRPC listener */
  controllerAddress: string;
  /** default: insecure */
  credentials?: grpc.ChannelCredentials;
  /** the agent id currently registered ("" = none yet); e.g. `() => registration.agentId()` */
  agentId: () => string;
  /** whether registration completed; the watch opens only once true; e.g. `() => registration.ready()` */
  registered?: () => boolean;
  /** own ports, the defaults for tasks with port 0 */
  ports: TaskExecutionOptions["ports"];
  probeTimeoutMs?: TaskExecutionOptions["probeTimeoutMs"];
  udpPackets?: number;
  icmpCount?: number;
  defaultDnsQuery?: string;
  /** hop limit of mtr tasks without params.maxHops (checkers.mtr.maxHops) */
  mtrMaxHops?: number;
  /** reconnect backoff; default REGISTER_BACKOFF (2 s doubling to 30 s, 25% jitter) */
  backoff?: BackoffPolicy;
  /** tasks run at once; more are answered failed "agent busy"; default 64 */
  maxConcurrent?: number;
  logger?: Logger;
}

/**
 * The agent's one-shot diagnostics executor. It opens TaskService.WatchTasks with the current agent id once
 * registered, runs every task it receives concurrently with the agent's probes (executeTask), and reports each
 * TaskResult (details_json = the details object, timestamp = agent clock). A broken or refused stream (and a not
 * yet registered agent) is retried with `backoff`; the attempt counter resets when the controller answers.
 *
 * Wiring (apps/agent main): `const tasks = new AgentTaskRunner({ controllerAddress, credentials,
 * agentId: () => registration.agentId(), registered: () => registration.ready(),
 * ports: { httpPort, udpPort: grpcPort }, probers: { ...defaultProbers(), icmp }, probeTimeoutMs: { tcp:
 * checkers.tcp.timeout, ... }, udpPackets: checkers.udp.packets, defaultDnsQuery: checkers.dns.hosts[0],
 * logger })`; `tasks.start()` after `registration.start()`; `await tasks.stop()` before `registration.stop()`.
 */
export class AgentTaskRunner {
  readonly #o: AgentTaskRunnerOptions;
  readonly #exec: TaskExecutionOptions;
  readonly #logger: Logger;
  readonly #client: TaskServiceClient;
  readonly #running = new Set<Promise<void>>();
  #call: grpc.ClientReadableStream<TaskMessage> | undefined;
  #watchingAs = "";
  #connected = false;
  #attempt = 0;
  #timer: NodeJS.Timeout | undefined;
  #started = false;
  #stopped = false;

  constructor(opts: AgentTaskRunnerOptions) {
    this.#o = opts;
    this.#logger = opts.logger ?? silentLogger;
    this.#exec = {
      probers: opts.probers ?? defaultProbers(),
      ports: opts.ports,
      probeTimeoutMs: opts.probeTimeoutMs,
      udpPackets: opts.udpPackets,
      icmpCount: opts.icmpCount,
      defaultDnsQuery: opts.defaultDnsQuery,
      mtrMaxHops: opts.mtrMaxHops,
    };
    this.#client = createTaskServiceClient(
      opts.controllerAddress,
      opts.credentials ?? grpc.credentials.createInsecure(),
      { "grpc.initial_reconnect_backoff_ms": 500, "grpc.max_reconnect_backoff_ms": 5000 },
    );
  }

  /** Starts watching for tasks (in the background). */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#open();
  }

  /** Closes the task stream, waits for running tasks to report (at most ~2 s), and closes the client. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#timer);
    const call = this.#call;
    this.#call = undefined;
    call?.cancel();
    this.#connected = false;
    await Promise.race([Promise.all(this.#running), new Promise((r) => setTimeout(r, 2000).unref())]);
    this.#client.close();
  }

  /** True while a task stream is open and acknowledged by the controller. */
  connected(): boolean {
    return this.#connected;
  }

  /** Tasks currently running. */
  get running(): number {
    return this.#running.size;
  }

  #open(): void {
    if (this.#stopped || this.#call !== undefined) return;
    const id = this.#o.agentId();
    if (id === "" || !(this.#o.registered?.() ?? true)) {
      this.#retry("not registered yet", NOT_REGISTERED_POLL_MS);
      return;
    }
    const call = this.#client.WatchTasks({ agent_id: id });
    this.#call = call;
    this.#watchingAs = id;
    call.on("metadata", () => {
      if (this.#call !== call) return;
      this.#attempt = 0;
      this.#connected = true;
      this.#logger.info({ agentId: id }, "task stream open");
    });
    call.on("data", (task: TaskMessage) => this.#run(task));
    const broken = (why: string): void => {
      if (this.#call !== call) return;
      this.#call = undefined;
      this.#connected = false;
      if (this.#stopped) return;
      this.#logger.warn({ why }, "task stream broken, reconnecting");
      this.#retry(why);
    };
    call.on("error", (err: Error) => broken(err.message));
    call.on("end", () => broken("stream ended"));
  }

  #retry(why: string, fixedDelayMs?: number): void {
    if (this.#stopped || this.#timer !== undefined) return;
    const delay = fixedDelayMs ?? backoffDelay(this.#attempt++, this.#o.backoff ?? REGISTER_BACKOFF);
    this.#logger.debug({ why, delay }, "task stream retry scheduled");
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#open();
    }, delay);
  }

  #run(task: TaskMessage): void {
    const agentId = this.#watchingAs;
    if (this.#running.size >= (this.#o.maxConcurrent ?? 64)) {
      this.#report(result(agentId, task, { success: false, error: "agent busy", durationNs: 0 }));
      return;
    }
    const p = timedTask(task, this.#exec).then((outcome) => this.#report(result(agentId, task, outcome)));
    this.#running.add(p);
    void p.finally(() => this.#running.delete(p));
  }

  #report(r: TaskResultMessage): Promise<void> {
    return new Promise((resolve) => {
      this.#client.ReportTaskResult(r, { deadline: Date.now() + 5000 }, (err) => {
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
