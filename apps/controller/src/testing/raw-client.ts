import { bearerInterceptor } from "@svc/controller-client";
import {
  type AgentServiceClient,
  createAgentServiceClient,
  grpc,
  type PeerList,
  proto,
  type RegisterRequest,
  type RegisterResponse,
} from "@svc/protocol";

/** Test helper: a registration with every field at its zero value, then the overrides. */
export function registerRequest(over: Partial<RegisterRequest> = {}): RegisterRequest {
  return proto.RegisterRequest.fromPartial(over);
}

/** Test helper: an open WatchPeers stream that records every PeerList it receives. */
export interface PeerWatch {
  lists: PeerList[];
  /** how the stream failed (e.g. PERMISSION_DENIED), once it has */
  error(): grpc.ServiceError | undefined;
  /** resolves once the latest list received matches `pred`; rejects after `timeoutMs` */
  waitFor(pred: (l: PeerList) => boolean, timeoutMs?: number): Promise<PeerList>;
  cancel(): void;
}

/** Test helper: promise wrappers around the raw generated client, for talking to the controller as old agents do. */
export class RawAgentClient {
  readonly client: AgentServiceClient;

  /**
   * `token`: sent as `authorization: Bearer <token>` with every call (an agent's ServiceAccount token); `host`:
   * the controller's address to dial (default 127.0.0.1; `[::1]` reaches a dual-stack listener from another
   * source address)
   */
  constructor(port: number, opts: { token?: string; host?: string } = {}) {
    const token = opts.token;
    this.client = createAgentServiceClient(
      `${opts.host ?? "127.0.0.1"}:${port}`,
      grpc.credentials.createInsecure(),
      {
        // a connection of its own (grpc-js shares subchannels between clients of one target by default, so a
        // new client would inherit another's reconnect backoff)
        "grpc.use_local_subchannel_pool": 1,
        ...(token === undefined ? {} : { interceptors: [bearerInterceptor(() => token)] }),
      },
    );
  }

  register(req: RegisterRequest): Promise<RegisterResponse> {
    return new Promise((resolve, reject) => {
      this.client.Register(req, { deadline: Date.now() + 5000 }, (err, res) =>
        err || !res ? reject(err ?? new Error("empty response")) : resolve(res),
      );
    });
  }

  heartbeat(agentId: string): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.client.Heartbeat({ agent_id: agentId }, { deadline: Date.now() + 5000 }, (err, res) =>
        err || !res ? reject(err ?? new Error("empty response")) : resolve(res.known),
      );
    });
  }

  deregister(agentId: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.client.Deregister({ agent_id: agentId }, { deadline: Date.now() + 5000 }, (err) =>
        err ? reject(err) : resolve(),
      );
    });
  }

  watch(agentId: string): PeerWatch {
    const call = this.client.WatchPeers({ agent_id: agentId });
    const lists: PeerList[] = [];
    let failure: grpc.ServiceError | undefined;
    const waiters = new Set<() => void>();
    call.on("data", (l: PeerList) => {
      lists.push(l);
      for (const w of waiters) w();
    });
    call.on("error", (err: grpc.ServiceError) => {
      failure = err;
      for (const w of waiters) w();
    });
    return {
      lists,
      error: () => failure,
      cancel: () => call.cancel(),
      waitFor: (pred, timeoutMs = 5000) =>
        new Promise((resolve, reject) => {
          const check = (): boolean => {
            const hit = lists.at(-1);
            if (hit === undefined || !pred(hit)) return false;
            clearTimeout(timer);
            waiters.delete(waiter);
            resolve(hit);
            return true;
          };
          const waiter = (): void => {
            check();
          };
          const timer = setTimeout(() => {
            waiters.delete(waiter);
            reject(
              new Error(
                `no matching peer list within ${timeoutMs} ms; got ${JSON.stringify(lists)}${failure ? `; the stream failed: ${failure.code} ${failure.details}` : ""}`,
              ),
            );
          }, timeoutMs);
          if (!check()) waiters.add(waiter);
        }),
    };
  }

  close(): void {
    this.client.close();
  }
}
