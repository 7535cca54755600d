import { grpc } from "@svc/protocol";
import { ControllerError, type ControllerErrorCode } from "../errors.ts";
import { capMessage } from "./echo.ts";

/** The one table from controller error codes to gRPC status codes. */
export const GRPC_STATUS: Readonly<Record<ControllerErrorCode, grpc.status>> = {
  invalid_input: grpc.status.INVALID_ARGUMENT,
  too_large: grpc.status.RESOURCE_EXHAUSTED,
  unauthenticated: grpc.status.UNAUTHENTICATED,
  forbidden: grpc.status.PERMISSION_DENIED,
  not_found: grpc.status.NOT_FOUND,
  method_not_allowed: grpc.status.UNIMPLEMENTED,
  unsupported: grpc.status.UNIMPLEMENTED,
  disabled: grpc.status.UNIMPLEMENTED,
  upstream_failed: grpc.status.UNAVAILABLE,
  not_leader: grpc.status.UNAVAILABLE,
  timeout: grpc.status.DEADLINE_EXCEEDED,
  conflict: grpc.status.ALREADY_EXISTS,
};

/**
 * The gRPC status error for `err`: a ControllerError gets its table status and its message as details, cut to
 * 512 bytes (echo.ts capMessage: a message repeating a caller's input in full could exceed what the status
 * trailer can carry); anything else is a bug and answers INTERNAL without leaking its message.
 */
export function toServiceError(err: unknown): grpc.ServiceError {
  const code = err instanceof ControllerError ? GRPC_STATUS[err.code] : grpc.status.INTERNAL;
  const details = err instanceof ControllerError ? capMessage(err.message) : "internal error";
  return Object.assign(new Error(details), { code, details, metadata: new grpc.Metadata() });
}

/** Ends a server-streaming call with the status for `err`. */
export function failStream(
  call: { emit(event: "error", err: grpc.ServiceError): unknown },
  err: unknown,
): void {
  call.emit("error", toServiceError(err));
}

/**
 * A unary handler from a function that returns the response or throws (a ControllerError for refusals): the
 * answer or the mapped status goes to the callback, so handlers never pick status codes.
 */
export function unaryHandler<Req, Res>(
  fn: (call: grpc.ServerUnaryCall<Req, Res>) => Res | Promise<Res>,
): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    let res: Res | Promise<Res>;
    try {
      res = fn(call);
    } catch (err) {
      callback(toServiceError(err));
      return;
    }
    Promise.resolve(res).then(
      (value) => callback(null, value),
      (err: unknown) => callback(toServiceError(err)),
    );
  };
}

/**
 * A server-streaming handler from a function that sets the stream up or throws (a ControllerError for
 * refusals, before anything is written): a throw ends the call with the mapped status.
 */
export function streamHandler<Req, Res>(
  fn: (call: grpc.ServerWritableStream<Req, Res>) => void,
): grpc.handleServerStreamingCall<Req, Res> {
  return (call) => {
    try {
      fn(call);
    } catch (err) {
      failStream(call, err);
    }
  };
}
