import { createEventServiceClient, type EventMessage, type EventServiceClient, grpc } from "@svc/protocol";
import { waitUntil } from "../../testing/wait-until.ts";

/** Test helper: a real EventService.Subscribe stream that records every event and the final status. */
export class EventWatch {
  readonly events: EventMessage[] = [];
  readonly call: grpc.ClientReadableStream<EventMessage>;
  readonly #client: EventServiceClient;
  error: grpc.ServiceError | undefined;
  open = false;

  constructor(grpcPort: number, after: Record<string, number> = {}) {
    this.#client = createEventServiceClient(`127.0.0.1:${grpcPort}`, grpc.credentials.createInsecure());
    this.call = this.#client.Subscribe({ after });
    this.call.on("metadata", () => {
      this.open = true;
    });
    this.call.on("data", (e: EventMessage) => this.events.push(e));
    this.call.on("error", (err: grpc.ServiceError) => {
      this.error = err;
    });
  }

  /** Waits for response headers (the subscription is registered once they arrive). */
  async opened(): Promise<void> {
    await waitUntil(() => this.open || this.error !== undefined, "event stream opened");
    if (this.error) throw this.error;
  }

  of(topic: string): EventMessage[] {
    return this.events.filter((e) => e.topic === topic);
  }

  async waitFor(pred: (e: EventMessage) => boolean, what: string, timeoutMs = 5000): Promise<EventMessage> {
    await waitUntil(() => this.events.some(pred), what, timeoutMs);
    const hit = this.events.find(pred);
    if (hit === undefined) throw new Error(what);
    return hit;
  }

  close(): void {
    this.call.cancel();
    this.#client.close();
  }
}

/** The parsed payload of an event. */
export function payloadOf(e: EventMessage): Record<string, unknown> {
  return JSON.parse(e.payload_json) as Record<string, unknown>;
}
