import { readFileSync } from "node:fs";
import { grpc } from "@svc/protocol";

/**
 * A client interceptor that adds `authorization: Bearer <token>` to the metadata of every call it starts, with
 * the token `token()` gives at that moment (nothing when it gives undefined). Works on insecure channels too,
 * where grpc-js refuses call credentials: the in-cluster port is plain gRPC inside the pod network.
 */
export function bearerInterceptor(token: () => string | undefined): grpc.Interceptor {
  return (options, nextCall) =>
    new grpc.InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        const value = token();
        if (value !== undefined && value !== "") metadata.set("authorization", `Bearer ${value}`);
        next(metadata, listener);
      },
    });
}

/**
 * The token of a projected ServiceAccount token file, read again on every call (the kubelet rewrites the file
 * as it rotates the token, well before it expires), trimmed; undefined while the file cannot be read (the
 * controller then answers UNAUTHENTICATED and the caller retries), with `onError` told why.
 */
export function tokenFileReader(path: string, onError?: (err: Error) => void): () => string | undefined {
  return () => {
    try {
      return readFileSync(path, "utf8").trim();
    } catch (err) {
      onError?.(err as Error);
      return undefined;
    }
  };
}
