import type { grpc } from "@svc/protocol";
import { InvalidInputError } from "../errors.ts";
import { toServiceError } from "./grpc-errors.ts";

/** A request whose bytes did not decode, as the wrapped deserializer hands it on. */
const MALFORMED = Symbol("malformed request");
interface MalformedRequest {
  [MALFORMED]: string;
}

function malformedReason(request: unknown): string | undefined {
  return typeof request === "object" && request !== null && MALFORMED in request
    ? (request as MalformedRequest)[MALFORMED]
    : undefined;
}

/** A service as grpc.Server.addService takes it. */
export interface ServedService {
  definition: grpc.ServiceDefinition;
  handlers: grpc.UntypedServiceImplementation;
}

/**
 * `service` with undecodable requests refused as bad input. grpc-js answers a request its deserializer throws on
 * with INTERNAL `Error deserializing request`, the status of a server bug; here the deserializer of each unary and
 * server-streaming method hands such bytes on as a marker instead, and the handler answers the marker with
 * INVALID_ARGUMENT `malformed request: <decoder's reason>` before the real handler sees it (found by
 * grpc-fuzz.test.ts). Client- and bidi-streaming methods (svc.proto has none) are left as they are.
 */
export function refuseMalformedRequests(service: ServedService): ServedService {
  const definition: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  const handlers: grpc.UntypedServiceImplementation = { ...service.handlers };
  for (const [name, method] of Object.entries(service.definition)) {
    definition[name] = method;
    const inner =
      service.handlers[name] ?? (method.originalName ? service.handlers[method.originalName] : undefined);
    if (inner === undefined || method.requestStream) continue;
    const decode = method.requestDeserialize;
    definition[name] = {
      ...method,
      requestDeserialize: (bytes: Buffer): unknown => {
        try {
          return decode(bytes);
        } catch (err) {
          const reason = err instanceof Error ? err.message : String(err);
          return { [MALFORMED]: `malformed request: ${reason}` } satisfies MalformedRequest;
        }
      },
    };
    const refusal = (reason: string) => toServiceError(new InvalidInputError(reason));
    if (method.responseStream) {
      const h = inner as grpc.handleServerStreamingCall<unknown, unknown>;
      handlers[name] = ((call) => {
        const reason = malformedReason(call.request);
        if (reason === undefined) h(call);
        else call.emit("error", refusal(reason));
      }) as grpc.handleServerStreamingCall<unknown, unknown>;
    } else {
      const h = inner as grpc.handleUnaryCall<unknown, unknown>;
      handlers[name] = ((call, callback) => {
        const reason = malformedReason(call.request);
        if (reason === undefined) h(call, callback);
        else callback(refusal(reason));
      }) as grpc.handleUnaryCall<unknown, unknown>;
    }
    if (method.originalName && method.originalName !== name) delete handlers[method.originalName];
  }
  return { definition, handlers };
}
