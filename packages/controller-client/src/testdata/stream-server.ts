import http2 from "node:http2";
import { grpc } from "@svc/protocol";

/** One message of the fixture's stream. */
export interface TestMessage {
  n: number;
}

const json = {
  serialize: (v: unknown): Buffer => Buffer.from(JSON.stringify(v)),
  deserialize: (b: Buffer): unknown => JSON.parse(b.toString("utf8")),
};

/** Test fixture: a one-method server-streaming service (JSON on the wire), like the controller's Watch* RPCs. */
export const testStreamDefinition: grpc.ServiceDefinition = {
  Watch: {
    path: "/svc.test.TestStream/Watch",
    requestStream: false,
    responseStream: true,
    requestSerialize: json.serialize,
    requestDeserialize: json.deserialize,
    responseSerialize: json.serialize,
    responseDeserialize: json.deserialize,
  },
};

/** Test fixture: a client of testStreamDefinition. */
export interface TestStreamClient extends grpc.Client {
  Watch(req: { who: string }): grpc.ClientReadableStream<TestMessage>;
}

const ClientCtor = grpc.makeGenericClientConstructor(testStreamDefinition, "TestStream");

/** Test fixture: dials a TestStreamClient (grpc-js' own reconnect backoff kept short). */
export function dialTestStream(address: string): TestStreamClient {
  return new ClientCtor(address, grpc.credentials.createInsecure(), {
    "grpc.initial_reconnect_backoff_ms": 100,
    "grpc.max_reconnect_backoff_ms": 200,
  }) as unknown as TestStreamClient;
}

type ServerCall = grpc.ServerWritableStream<{ who: string }, TestMessage>;

/** Test fixture: a real grpc-js server on 127.0.0.1 speaking testStreamDefinition. */
export interface TestStreamServer {
  port: number;
  address: string;
  /** Watch calls received */
  opened: number;
  /** true: answer Watch with UNAVAILABLE `not the leader` (a standby replica) */
  standby: boolean;
  /** streams open now */
  open(): number;
  /** writes a message to every open stream */
  send(n: number): void;
  /** ends every open stream with status OK */
  end(): void;
  /** resets every open stream (HTTP/2 RST_STREAM from the server, mid-flight) */
  reset(): void;
  /** stops the server at once (streams fail UNAVAILABLE) */
  close(): void;
}

export async function startTestStreamServer(port = 0): Promise<TestStreamServer> {
  const streams = new Set<ServerCall>();
  const server = new grpc.Server();
  const s: TestStreamServer = {
    port: 0,
    address: "",
    opened: 0,
    standby: false,
    open: () => streams.size,
    send(n) {
      for (const c of streams) c.write({ n });
    },
    end() {
      for (const c of [...streams]) c.end();
      streams.clear();
    },
    reset() {
      for (const c of [...streams]) http2StreamOf(c).close(http2.constants.NGHTTP2_INTERNAL_ERROR);
      streams.clear();
    },
    close() {
      streams.clear();
      server.forceShutdown();
    },
  };
  server.addService(testStreamDefinition, {
    Watch(call: ServerCall) {
      s.opened++;
      if (s.standby) {
        call.emit("error", { code: grpc.status.UNAVAILABLE, details: "not the leader" });
        return;
      }
      streams.add(call);
      call.on("cancelled", () => streams.delete(call));
      call.sendMetadata(new grpc.Metadata());
    },
  });
  s.port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  s.address = `127.0.0.1:${s.port}`;
  return s;
}

/** The HTTP/2 stream under a grpc-js server call (grpc-js 1.x internals: call.call.stream without interceptors). */
function http2StreamOf(call: ServerCall): http2.ServerHttp2Stream {
  const stream = (call as unknown as { call?: { stream?: http2.ServerHttp2Stream } }).call?.stream;
  if (!stream || typeof stream.close !== "function")
    throw new Error("grpc-js internals changed: no http2 stream");
  return stream;
}
