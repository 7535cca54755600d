import { grpc } from "@svc/protocol";
import { refuseMalformedRequests } from "./malformed-requests.ts";

/** The controller's agent-facing gRPC listener. */
export class GrpcServer {
  readonly #server = new grpc.Server();
  #port = 0;
  #bound = false;

  /**
   * Adds a service (agents, task dispatch, external checks, events); call before listen(). Requests that do not
   * decode are refused with INVALID_ARGUMENT (malformed-requests.ts), not grpc-js's INTERNAL.
   */
  addService(definition: grpc.ServiceDefinition, handlers: grpc.UntypedServiceImplementation): void {
    const served = refuseMalformedRequests({ definition, handlers });
    this.#server.addService(served.definition, served.handlers);
  }

  /** Binds host:port (port 0 picks a free one) and resolves with the bound port. */
  listen(host: string, port: number, credentials = grpc.ServerCredentials.createInsecure()): Promise<number> {
    const target = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
    return new Promise((resolve, reject) => {
      this.#server.bindAsync(target, credentials, (err, bound) => {
        if (err) {
          reject(err);
          return;
        }
        this.#port = bound;
        this.#bound = true;
        resolve(bound);
      });
    });
  }

  /** True once the listener is bound. */
  get bound(): boolean {
    return this.#bound;
  }

  /** The bound port (0 before listen). */
  get port(): number {
    return this.#port;
  }

  /** Stops accepting calls, ends open streams, and waits up to `graceMs` before forcing the shutdown. */
  async close(graceMs = 1000): Promise<void> {
    this.#bound = false;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.#server.forceShutdown();
        resolve();
      }, graceMs);
      this.#server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
