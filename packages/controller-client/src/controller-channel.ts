import { grpc } from "@svc/protocol";

/** The part of a grpc-js channel the readiness watch uses. */
export interface WatchableChannel {
  getConnectivityState(tryToConnect: boolean): grpc.connectivityState;
  watchConnectivityState(current: grpc.connectivityState, deadline: number, cb: (err?: Error) => void): void;
}

/** What the channel needs of a generated gRPC client. */
export interface Closable {
  close(): void;
  getChannel(): WatchableChannel;
}

/** Tells when the controller answers again (see ControllerChannel.whenAnswering). */
export interface Readiness {
  /**
   * undefined when the controller is reachable now; else calls `cb` once when it becomes reachable and returns
   * a function that stops watching
   */
  whenAnswering(cb: () => void): (() => void) | undefined;
}

/**
 * One gRPC service client to the controller, re-dialled on demand. After a replica answered `not the leader`
 * the agent drops the connection and dials its controller address again, so the next attempt goes wherever that
 * address leads now (a Kubernetes Service picks a replica per connection: spec "clients ask another replica").
 */
export class ControllerChannel<C extends Closable> implements Readiness {
  readonly #dial: () => C;
  #client: C | undefined;
  #closed = false;

  /** `dial` makes a new client (e.g. `() => createTaskServiceClient(address, credentials, options)`). */
  constructor(dial: () => C) {
    this.#dial = dial;
  }

  /** The current client, dialled on first use and again after redial(). Throws after close() (a bug). */
  get(): C {
    if (this.#closed) throw new Error("controller channel used after close()");
    this.#client ??= this.#dial();
    return this.#client;
  }

  /** Closes the current client; the next get() dials a new one. */
  redial(): void {
    const c = this.#client;
    this.#client = undefined;
    c?.close();
  }

  /**
   * When the controller cannot be reached now (the connection is not READY), watches the channel, which keeps
   * reconnecting on its own (CONTROLLER_CHANNEL_OPTIONS: at most about a second apart), and calls `cb` once it
   * is READY. Returns undefined when it is READY already: the controller answered, a failure was its answer.
   */
  whenAnswering(cb: () => void): (() => void) | undefined {
    if (this.#closed) return undefined;
    const channel = this.get().getChannel();
    const first = channel.getConnectivityState(true);
    if (first === grpc.connectivityState.READY) return undefined;
    let watching = true;
    const follow = (state: grpc.connectivityState): void => {
      // a deadline bounds each wait (grpc-js wants one); a timeout just watches again
      channel.watchConnectivityState(state, Date.now() + 60_000, () => {
        if (!watching) return;
        const now = channel.getConnectivityState(true);
        if (now === grpc.connectivityState.SHUTDOWN) return;
        if (now === grpc.connectivityState.READY) {
          watching = false;
          cb();
          return;
        }
        follow(now);
      });
    };
    follow(first);
    return () => {
      watching = false;
    };
  }

  /** Closes the client for good (calls in flight on it finish or fail on their own). */
  close(): void {
    this.#closed = true;
    this.redial();
  }

  /** True after close(). */
  closed(): boolean {
    return this.#closed;
  }
}

/**
 * Channel options of every agent->controller client: grpc-js' own reconnect kept short (500 ms to 1 s, jittered
 * by grpc-js), so an agent notices a restarted controller within about a second (ReconnectingStream then opens at
 * once). A connection attempt to a controller that is down is one refused TCP handshake.
 */
export const CONTROLLER_CHANNEL_OPTIONS = {
  "grpc.initial_reconnect_backoff_ms": 500,
  "grpc.max_reconnect_backoff_ms": 1000,
} as const;

/** A generated client factory (`createTaskServiceClient`, ...): insecure credentials when none are given. */
export type ClientFactory<C> = (
  address: string,
  credentials?: grpc.ChannelCredentials,
  options?: grpc.ClientOptions,
) => C;

/**
 * A channel to the controller at `address` for one service, with CONTROLLER_CHANNEL_OPTIONS and the given
 * interceptors (e.g. bearerInterceptor: the agent's ServiceAccount token on every call).
 */
export function controllerChannel<C extends Closable>(
  create: ClientFactory<C>,
  address: string,
  credentials?: grpc.ChannelCredentials,
  interceptors: grpc.Interceptor[] = [],
): ControllerChannel<C> {
  const options =
    interceptors.length > 0 ? { ...CONTROLLER_CHANNEL_OPTIONS, interceptors } : CONTROLLER_CHANNEL_OPTIONS;
  return new ControllerChannel(() => create(address, credentials, options));
}
