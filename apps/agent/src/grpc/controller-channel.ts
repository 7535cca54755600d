import type { grpc } from "@svc/protocol";

/** The one method of a generated gRPC client the channel needs. */
export interface Closable {
  close(): void;
}

/**
 * One gRPC service client to the controller, re-dialled on demand. After a replica answered `not the leader`
 * the agent drops the connection and dials its controller address again, so the next attempt goes wherever that
 * address leads now (a Kubernetes Service picks a replica per connection: spec "clients ask another replica").
 */
export class ControllerChannel<C extends Closable> {
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

/** Channel options of every agent->controller client: grpc-js' own reconnect kept short (500 ms to 5 s). */
export const CONTROLLER_CHANNEL_OPTIONS = {
  "grpc.initial_reconnect_backoff_ms": 500,
  "grpc.max_reconnect_backoff_ms": 5000,
} as const;

/** A generated client factory (`createTaskServiceClient`, ...): insecure credentials when none are given. */
export type ClientFactory<C> = (
  address: string,
  credentials?: grpc.ChannelCredentials,
  options?: grpc.ClientOptions,
) => C;

/** A channel to the controller at `address` for one service, with CONTROLLER_CHANNEL_OPTIONS. */
export function controllerChannel<C extends Closable>(
  create: ClientFactory<C>,
  address: string,
  credentials?: grpc.ChannelCredentials,
): ControllerChannel<C> {
  return new ControllerChannel(() => create(address, credentials, CONTROLLER_CHANNEL_OPTIONS));
}
