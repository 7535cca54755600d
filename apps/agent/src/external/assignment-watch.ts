import {
  type BackoffPolicy,
  type ControllerChannel,
  controllerChannel,
  ReconnectingStream,
} from "@svc/controller-client";
import {
  createExternalCheckServiceClient,
  type ExternalCheckAssignment,
  type ExternalCheckServiceClient,
  type ExternalCheckSpecMessage,
  type grpc,
} from "@svc/protocol";
import type { ProbeClock } from "../clock/probe-clock.ts";
import { type Logger, silentLogger } from "../registration/logger.ts";

export interface AssignmentWatchOptions {
  /** host:port of the controller's gRPC listener */
  controllerAddress: string;
  /** default: insecure */
  credentials?: grpc.ChannelCredentials;
  /** client interceptors of every call (the ServiceAccount token: bearerInterceptor) */
  interceptors?: grpc.Interceptor[];
  /** read at every (re)subscribe */
  agentId: () => string;
  /** receives every assignment, whole */
  onAssignment: (specs: ExternalCheckSpecMessage[]) => void;
  /** default REGISTER_BACKOFF (2 s doubling to 30 s, up to 25% jitter) */
  backoff?: BackoffPolicy;
  /** default timerClock */
  clock?: ProbeClock;
  logger?: Logger;
}

/**
 * Keeps a WatchExternalChecks stream open (ReconnectingStream): subscribes on start(), and whenever the stream
 * ends or fails (controller restart, standby, network) re-subscribes after the helper's backoff. The last
 * assignment stays in force while disconnected.
 */
export class AssignmentWatch {
  readonly #opts: AssignmentWatchOptions;
  readonly #logger: Logger;
  #channel: ControllerChannel<ExternalCheckServiceClient> | undefined;
  #stream: ReconnectingStream<ExternalCheckAssignment> | undefined;

  constructor(opts: AssignmentWatchOptions) {
    this.#opts = opts;
    this.#logger = opts.logger ?? silentLogger;
  }

  start(): void {
    if (this.#stream) return;
    const o = this.#opts;
    const channel = controllerChannel(
      createExternalCheckServiceClient,
      o.controllerAddress,
      o.credentials,
      o.interceptors,
    );
    this.#channel = channel;
    this.#stream = new ReconnectingStream<ExternalCheckAssignment>({
      name: "external-check watch",
      open: () => channel.get().WatchExternalChecks({ agent_id: o.agentId() }),
      onMessage: (a) => o.onAssignment(a.specs ?? []),
      channel,
      logger: this.#logger,
      ...(o.backoff ? { backoff: o.backoff } : {}),
      ...(o.clock ? { clock: o.clock } : {}),
    });
    this.#stream.start();
  }

  stop(): void {
    this.#stream?.stop();
    this.#stream = undefined;
    this.#channel?.close();
    this.#channel = undefined;
  }
}
