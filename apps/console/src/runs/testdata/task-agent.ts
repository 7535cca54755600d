/**
 * Test fixture: an agent speaking the real wire protocol to an in-process controller: registers, opens WatchTasks
 * and answers each diagnostics task as `answer` says (ReportTaskResult). Records the tasks received.
 */
import type { Controller } from "@svc/controller";
import { RawAgentClient, registerRequest, waitUntil } from "@svc/controller";
import {
  createTaskServiceClient,
  grpc,
  type TaskMessage,
  type TaskResultMessage,
  type TaskServiceClient,
} from "@svc/protocol";

/** The result to report for a task (fields over a success), or undefined to stay silent. */
export type TaskAnswer = (task: TaskMessage) => Partial<TaskResultMessage> | undefined;

/** A registered agent answering diagnostics tasks. */
export class TaskAgent {
  readonly tasks: TaskMessage[] = [];
  private readonly client: TaskServiceClient;
  private call: grpc.ClientReadableStream<TaskMessage> | undefined;

  private constructor(
    port: number,
    readonly agentId: string,
  ) {
    this.client = createTaskServiceClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  }

  /** Registers node `node` (address 198.18.0.x, never dialled) and opens its task stream. */
  static async start(c: Controller, node: string, address: string, answer: TaskAnswer): Promise<TaskAgent> {
    const raw = new RawAgentClient(c.grpcPort);
    const res = await raw
      .register(
        registerRequest({
          node_name: node,
          agent_id: `id-${node}`,
          advertise_address: address,
          zone: "z1",
          version: "2.5.0",
          http_port: 8080,
          udp_port: 8081,
          capabilities: ["plane:tcp", "plane:udp", "plane:icmp", "plane:mtr", "external-checks"],
        }),
      )
      .finally(() => raw.close());
    const agent = new TaskAgent(c.grpcPort, res.agent_id);
    const call = agent.client.WatchTasks({ agent_id: res.agent_id });
    agent.call = call;
    call.on("error", () => {});
    call.on("data", (task: TaskMessage) => {
      agent.tasks.push(task);
      const a = answer(task);
      if (a === undefined) return;
      const r: TaskResultMessage = {
        agent_id: res.agent_id,
        task_id: task.task_id,
        success: true,
        error: "",
        duration_ns: 1_000_000,
        details_json: "",
        timestamp_unix_ns: 0,
        ...a,
      };
      agent.client.ReportTaskResult(r, { deadline: Date.now() + 5000 }, () => {});
    });
    await waitUntil(() => c.tasks.hasStream(res.agent_id), "task stream attached");
    return agent;
  }

  close(): void {
    this.call?.cancel();
    this.client.close();
  }
}
