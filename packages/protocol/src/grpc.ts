import * as grpc from "@grpc/grpc-js";
import * as proto from "./generated/svc.ts";

/**
 * The code generated from svc.proto (`npm run gen:proto`): message types with snake_case fields, 64-bit integers
 * as numbers, every field present after decoding (zero values filled in); codecs under the same names.
 */
export { proto };

export type RegisterRequest = proto.RegisterRequest;
export type RegisterResponse = proto.RegisterResponse;
export type HeartbeatRequest = proto.HeartbeatRequest;
export type HeartbeatResponse = proto.HeartbeatResponse;
export type DeregisterRequest = proto.DeregisterRequest;
export type DeregisterResponse = proto.DeregisterResponse;
/** svc.v1.WatchPeersRequest; senders may leave out `incremental` (agents before deltas): it reads as false. */
export type WatchPeersRequest = Omit<proto.WatchPeersRequest, "incremental"> & {
  /** the watcher applies deltas (`PeerList.delta`); absent/false: full lists only (agents before deltas) */
  incremental?: boolean;
};
/** svc.v1.Peer as it travels (the probe-side form is `Peer`, see peerFromMessage). */
export type PeerMessage = proto.Peer;
/**
 * A WatchPeers message. `delta` false (always the first message of a stream): `peers` is the whole list. `delta`
 * true (only to watchers that asked for `incremental`): `peers` are upserts by agent_id, `removed` the agent ids
 * gone; `sparse`, `planned` and `zone` are complete in every message. Senders may omit `delta`/`removed` (full);
 * received lists always carry both.
 */
export type PeerList = Omit<proto.PeerList, "delta" | "removed"> &
  Partial<Pick<proto.PeerList, "delta" | "removed">>;

/** One method of a generated grpc-js service definition. */
interface MethodDef {
  path: string;
  requestStream: boolean;
  responseStream: boolean;
  requestSerialize: (value: never) => Buffer;
  requestDeserialize: (bytes: Buffer) => unknown;
  responseSerialize: (value: never) => Buffer;
  responseDeserialize: (bytes: Buffer) => unknown;
}

/**
 * A generated service definition keyed by the methods' names as the .proto spells them (`Register`,
 * `WatchPeers`): ts-proto's grpc-js output lower-cases them; `originalName` keeps the lower-case form as an alias
 * on clients and as an accepted handler key on servers.
 */
export type ServiceDef<D> = { [K in keyof D as Capitalize<K & string>]: D[K] & { originalName: string } };

/** Re-keys a generated definition by the .proto method names (the last segment of each path). */
export function protoNamedDefinition<D extends Record<string, MethodDef>>(def: D): ServiceDef<D> {
  const out: Record<string, MethodDef & { originalName: string }> = {};
  for (const [key, method] of Object.entries(def)) {
    const name = key.charAt(0).toUpperCase() + key.slice(1);
    if (method.path.slice(method.path.lastIndexOf("/") + 1) !== name) {
      throw new Error(`${method.path}: generated method name ${key} does not match the .proto name`);
    }
    out[name] = { ...method, originalName: key };
  }
  return out as ServiceDef<D>;
}

type ClientRequest<M> = M extends { requestSerialize: (value: infer Q) => Buffer } ? Q : never;
type ClientResponse<M> = M extends { responseDeserialize: (bytes: Buffer) => infer R } ? R : never;
type ServerRequest<M> = M extends { requestDeserialize: (bytes: Buffer) => infer Q } ? Q : never;
type ServerResponse<M> = M extends { responseSerialize: (value: infer R) => Buffer } ? R : never;

/** Server-side handlers of a service definition, by .proto method name. */
export type ServiceHandlers<D> = {
  [K in keyof D]: D[K] extends { responseStream: true }
    ? grpc.handleServerStreamingCall<ServerRequest<D[K]>, ServerResponse<D[K]>>
    : grpc.handleUnaryCall<ServerRequest<D[K]>, ServerResponse<D[K]>>;
};

/** Client stub methods of a service definition, by .proto method name. */
export type ServiceClientMethods<D> = {
  [K in keyof D]: D[K] extends { responseStream: true }
    ? (req: ClientRequest<D[K]>, opts?: grpc.CallOptions) => grpc.ClientReadableStream<ClientResponse<D[K]>>
    : (
        req: ClientRequest<D[K]>,
        opts: grpc.CallOptions,
        cb: (err: grpc.ServiceError | null, res?: ClientResponse<D[K]>) => void,
      ) => grpc.ClientUnaryCall;
};

/** Handlers of a service definition, as grpc.Server takes them. */
export type HandlersOf<D> = grpc.UntypedServiceImplementation & ServiceHandlers<D>;

/** A client stub of a service definition. */
export type ClientOf<D> = grpc.Client & ServiceClientMethods<D>;

/**
 * A client factory for one service definition (service name from its methods' paths); the constructor is made on
 * first use.
 */
export function serviceClientFactory<C>(
  def: grpc.ServiceDefinition,
): (address: string, credentials?: grpc.ChannelCredentials, options?: grpc.ClientOptions) => C {
  const [first] = Object.values(def);
  if (!first) throw new Error("a service definition without methods");
  const serviceName = first.path.slice(1, first.path.lastIndexOf("/"));
  let Ctor: grpc.ServiceClientConstructor | undefined;
  return (address, credentials = grpc.credentials.createInsecure(), options) => {
    Ctor ??= grpc.makeGenericClientConstructor(def, serviceName);
    return new Ctor(address, credentials, options) as unknown as C;
  };
}

export { grpc };
