import {
  type ExternalCheckAssignment,
  type ExternalCheckSpecMessage,
  externalCheckServiceDefinition,
  grpc,
} from "@svc/protocol";

/** Test fixture: a gRPC server speaking ExternalCheckService that pushes whatever assignment the test sets. */
export interface AssignmentServer {
  port: number;
  /** agent ids of every subscribe received */
  subscribes: string[];
  /** replaces the assignment and pushes it to every open stream */
  set(specs: ExternalCheckSpecMessage[]): void;
  close(): Promise<void>;
}

export async function startAssignmentServer(
  initial: ExternalCheckSpecMessage[] = [],
  port = 0,
): Promise<AssignmentServer> {
  let specs = initial;
  const streams = new Set<grpc.ServerWritableStream<unknown, ExternalCheckAssignment>>();
  const subscribes: string[] = [];
  const server = new grpc.Server();
  server.addService(externalCheckServiceDefinition(), {
    WatchExternalChecks(call: grpc.ServerWritableStream<{ agent_id: string }, ExternalCheckAssignment>) {
      subscribes.push(call.request.agent_id);
      streams.add(call);
      call.on("cancelled", () => streams.delete(call));
      call.write({ specs });
    },
  });
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return {
    port: bound,
    subscribes,
    set(next) {
      specs = next;
      for (const s of streams) s.write({ specs });
    },
    async close() {
      for (const s of streams) s.end();
      streams.clear();
      server.forceShutdown();
    },
  };
}

/** Test fixture: a spec message with defaults (host target 127.0.0.1, tcp, 100 ms interval, 1 s timeout). */
export function specMessage(
  over: Partial<ExternalCheckSpecMessage> & {
    name?: string;
    address?: string;
    port?: number;
    kind?: string;
  } = {},
): ExternalCheckSpecMessage {
  const { name, address, port, kind, ...rest } = over;
  return {
    definition_id: "def",
    target: { name: name ?? "local", kind: kind ?? "host", address: address ?? "127.0.0.1", port: port ?? 0 },
    check_type: "tcp",
    interval_ns: 100_000_000,
    timeout_ns: 1_000_000_000,
    params_json: "",
    ...rest,
  };
}
