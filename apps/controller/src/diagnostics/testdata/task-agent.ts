import {
  createTaskServiceClient,
  grpc,
  type RegisterRequest,
  type TaskMessage,
  type TaskResultMessage,
  type TaskServiceClient,
} from "@svc/protocol";
import type { Controller } from "../../controller.ts";
import { RawAgentClient, registerRequest } from "../../testing/raw-client.ts";
import { waitUntil } from "../../testing/wait-until.ts";

/** What the test agent does with a task: a result to report (fields over a default), or undefined to stay silent. */
export type TaskHandler = (
  task: TaskMessage,
  agent: TaskAgent,
) => Partial<TaskResultMessage> | undefined | Promise<Partial<TaskResultMessage> | undefined>;

/**
 * Test helper: an agent speaking the real wire protocol: registers through AgentService, opens WatchTasks and
 * answers each task as `handler` says through ReportTaskResult. Records every task received.
 */
export class TaskAgent {
  readonly tasks: TaskMessage[] = [];
  readonly agentId: string;
  readonly client: TaskServiceClient;
  #call: grpc.ClientReadableStream<TaskMessage> | undefined;

  private constructor(port: number, agentId: string) {
    this.agentId = agentId;
    this.client = createTaskServiceClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  }

  /** Registers `reg` and, unless `watch` is false, opens the task stream and waits until the controller holds it. */
  static async start(
    c: Controller,
    reg: Partial<RegisterRequest>,
    handler: TaskHandler,
    watch = true,
  ): Promise<TaskAgent> {
    const raw = new RawAgentClient(c.grpcPort);
    const res = await raw
      .register(registerRequest({ advertise_address: "198.18.0.10", version: "2.5.0", ...reg }))
      .finally(() => raw.close());
    const agent = new TaskAgent(c.grpcPort, res.agent_id);
    if (watch) {
      agent.watch(handler);
      await waitUntil(() => c.tasks.hasStream(res.agent_id), "task stream attached");
    }
    return agent;
  }

  watch(handler: TaskHandler): void {
    const call = this.client.WatchTasks({ agent_id: this.agentId });
    this.#call = call;
    call.on("error", () => {});
    call.on("data", async (task: TaskMessage) => {
      this.tasks.push(task);
      const answer = await handler(task, this);
      if (answer !== undefined) await this.report({ task_id: task.task_id, ...answer });
    });
  }

  /** Closes the task stream (the controller sees the agent go away). */
  closeStream(): void {
    this.#call?.cancel();
  }

  report(over: Partial<TaskResultMessage>): Promise<grpc.ServiceError | null> {
    const r: TaskResultMessage = {
      agent_id: this.agentId,
      task_id: "",
      success: true,
      error: "",
      duration_ns: 0,
      details_json: "",
      timestamp_unix_ns: 0,
      ...over,
    };
    return new Promise((resolve) => {
      this.client.ReportTaskResult(r, { deadline: Date.now() + 5000 }, (err) => resolve(err));
    });
  }

  close(): void {
    this.closeStream();
    this.client.close();
  }
}
