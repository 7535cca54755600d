import { randomUUID } from "node:crypto";
import type { TaskMessage, TaskResultMessage } from "@svc/protocol";

/** An agent's open WatchTasks stream as the dispatcher uses it. */
export interface TaskStream {
  /** Sends one task; throws or calls back with an error when the stream cannot take it. */
  write(task: TaskMessage, cb: (err?: Error | null) => void): void;
  /** true once the agent went away (cancelled, closed) */
  closed(): boolean;
  /** Ends the stream (replaced by a newer one, or shutdown). */
  end(): void;
}

/** Why a dispatch produced no result; the diagnostics route maps these to 404, 502 and 504. */
export type DispatchFailure =
  | { kind: "no-stream"; message: string }
  | { kind: "write-failed"; message: string }
  | { kind: "stream-closed"; message: string }
  | { kind: "timeout"; message: string };

export type DispatchOutcome =
  | { ok: true; result: TaskResultMessage }
  | { ok: false; failure: DispatchFailure };

interface Pending {
  agentId: string;
  stream: TaskStream;
  settle: (o: DispatchOutcome) => void;
}

/**
 * One-shot task dispatch to agents. Each agent holds at most one active task stream (a newer WatchTasks from the
 * same agent id replaces and ends the older one). dispatch() writes a task with a fresh `task_id` and resolves
 * with the agent's TaskResult (reported through report()) or a typed failure: `no-stream` when the agent has
 * no active stream, `write-failed` when the write fails, `stream-closed` when the stream goes away before the
 * result, `timeout` after `timeoutMs`. Never rejects.
 */
export class TaskDispatcher {
  readonly #streams = new Map<string, TaskStream>();
  readonly #pending = new Map<string, Pending>();

  /** Makes `stream` the agent's active task stream; returns the detach function (no-op once replaced). */
  attach(agentId: string, stream: TaskStream): () => void {
    const old = this.#streams.get(agentId);
    this.#streams.set(agentId, stream);
    if (old !== undefined && old !== stream) {
      this.#failStream(old, "task stream replaced by a newer one");
      old.end();
    }
    return () => {
      if (this.#streams.get(agentId) === stream) this.#streams.delete(agentId);
      this.#failStream(stream, "task stream closed before the result");
    };
  }

  /** Whether the agent has an active task stream. */
  hasStream(agentId: string): boolean {
    const s = this.#streams.get(agentId);
    return s !== undefined && !s.closed();
  }

  /** Number of active task streams. */
  get size(): number {
    return this.#streams.size;
  }

  /** Number of tasks waiting for a result. */
  get pending(): number {
    return this.#pending.size;
  }

  dispatch(agentId: string, task: Omit<TaskMessage, "task_id">, timeoutMs: number): Promise<DispatchOutcome> {
    const stream = this.#streams.get(agentId);
    if (stream === undefined || stream.closed()) {
      return Promise.resolve({
        ok: false,
        failure: { kind: "no-stream", message: `no active task stream for agent ${agentId}` },
      });
    }
    const taskId = randomUUID();
    return new Promise((resolve) => {
      const timer = setTimeout(
        () =>
          settle({ ok: false, failure: { kind: "timeout", message: `no result within ${timeoutMs} ms` } }),
        timeoutMs,
      );
      const settle = (o: DispatchOutcome): void => {
        if (!this.#pending.delete(taskId)) return;
        clearTimeout(timer);
        resolve(o);
      };
      this.#pending.set(taskId, { agentId, stream, settle });
      const writeFailed = (err: unknown): void =>
        settle({
          ok: false,
          failure: { kind: "write-failed", message: `task stream write failed: ${describe(err)}` },
        });
      try {
        stream.write({ ...task, task_id: taskId }, (err) => {
          if (err) writeFailed(err);
        });
      } catch (err) {
        writeFailed(err);
      }
    });
  }

  /** Resolves the pending task a result belongs to; false when no such task is pending for that agent. */
  report(result: TaskResultMessage): boolean {
    const p = this.#pending.get(result.task_id);
    if (p === undefined || (result.agent_id !== "" && result.agent_id !== p.agentId)) return false;
    p.settle({ ok: true, result });
    return true;
  }

  /** Ends every stream (pending tasks fail as `stream-closed`). */
  close(): void {
    for (const s of this.#streams.values()) {
      this.#failStream(s, "controller shutting down");
      s.end();
    }
    this.#streams.clear();
  }

  #failStream(stream: TaskStream, message: string): void {
    for (const p of [...this.#pending.values()]) {
      if (p.stream === stream) p.settle({ ok: false, failure: { kind: "stream-closed", message } });
    }
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
