import {
  createExternalCheckServiceClient,
  type ExternalCheckAssignment,
  type ExternalCheckServiceClient,
  type ExternalCheckSpecMessage,
  grpc,
} from "@svc/protocol";
import { type BackoffPolicy, backoffDelay, REGISTER_BACKOFF } from "../registration/facts.ts";
import { type Logger, silentLogger } from "../registration/logger.ts";

export interface AssignmentWatchOptions {
  /** host:port of the controller's gRPC listener */
  controllerAddress: string;
  /** default: insecure */
  credentials?: grpc.ChannelCredentials;
  /** read at every (re)subscribe */
  agentId: () => string;
  /** receives every assignment, whole */
  onAssignment: (specs: ExternalCheckSpecMessage[]) => void;
  /** default REGISTER_BACKOFF (2 s doubling to 30 s, up to 25% jitter) */
  backoff?: BackoffPolicy;
  logger?: Logger;
}

/**
 * Keeps a WatchExternalChecks stream open: subscribes on start(), and whenever the stream ends or fails
 * (controller restart, standby, network) re-subscribes after a backoff that resets once an assignment arrives.
 * The last assignment stays in force while disconnected.
 */
export class AssignmentWatch {
  readonly #opts: AssignmentWatchOptions;
  readonly #logger: Logger;
  readonly #backoff: BackoffPolicy;
  #client: ExternalCheckServiceClient | undefined;
  #call: grpc.ClientReadableStream<ExternalCheckAssignment> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #attempt = 0;
  #running = false;

  constructor(opts: AssignmentWatchOptions) {
    this.#opts = opts;
    this.#logger = opts.logger ?? silentLogger;
    this.#backoff = opts.backoff ?? REGISTER_BACKOFF;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#client = createExternalCheckServiceClient(
      this.#opts.controllerAddress,
      this.#opts.credentials ?? grpc.credentials.createInsecure(),
      { "grpc.initial_reconnect_backoff_ms": 500, "grpc.max_reconnect_backoff_ms": 5000 },
    );
    this.#subscribe();
  }

  stop(): void {
    if (!this.#running) return;
    this.#running = false;
    clearTimeout(this.#timer);
    const call = this.#call;
    this.#call = undefined;
    call?.cancel();
    this.#client?.close();
    this.#client = undefined;
  }

  #subscribe(): void {
    if (!this.#running || !this.#client) return;
    const call = this.#client.WatchExternalChecks({ agent_id: this.#opts.agentId() });
    this.#call = call;
    let ended = false;
    const retry = (why: string): void => {
      if (ended || this.#call !== call) return;
      ended = true;
      this.#call = undefined;
      if (!this.#running) return;
      const delay = backoffDelay(this.#attempt++, this.#backoff);
      this.#logger.warn({ reason: why, retryMs: delay }, "external-check watch ended; resubscribing");
      this.#timer = setTimeout(() => this.#subscribe(), delay);
    };
    call.on("data", (a: ExternalCheckAssignment) => {
      this.#attempt = 0;
      this.#opts.onAssignment(a.specs ?? []);
    });
    call.on("error", (err: grpc.ServiceError) => retry(err.details || err.message));
    call.on("end", () => retry("stream ended"));
  }
}
