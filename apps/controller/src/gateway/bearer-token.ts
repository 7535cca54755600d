import { createHash, timingSafeEqual } from "node:crypto";
import type { grpc } from "@svc/protocol";

/** Why a call's bearer token was refused; undefined means accepted. */
export type TokenRefusal = "missing bearer token" | "invalid bearer token";

function digest(s: string): Buffer {
  return createHash("sha256").update(s, "utf8").digest();
}

/**
 * Checks the `authorization` metadata of a call against `expected`: exactly one value of the form
 * `Bearer <token>` (scheme case-insensitive, token compared after trimming). The comparison is constant-time
 * (SHA-256 digests of equal length through timingSafeEqual), so neither content nor length leaks by timing.
 */
export function checkBearerToken(metadata: grpc.Metadata, expected: string): TokenRefusal | undefined {
  const given = bearerToken(metadata);
  if ("refusal" in given) return given.refusal;
  return timingSafeEqual(digest(given.token), digest(expected)) ? undefined : "invalid bearer token";
}

/**
 * The token of a call's `authorization: Bearer <token>` metadata (exactly one value; scheme case-insensitive;
 * trimmed), or why there is none.
 */
export function bearerToken(metadata: grpc.Metadata): { token: string } | { refusal: TokenRefusal } {
  const values = metadata.get("authorization");
  if (values.length === 0) return { refusal: "missing bearer token" };
  if (values.length > 1) return { refusal: "invalid bearer token" };
  const raw = values[0];
  const value = typeof raw === "string" ? raw : (raw?.toString("utf8") ?? "");
  const match = /^bearer\s+(.+)$/i.exec(value.trim());
  if (match === null) return { refusal: "missing bearer token" };
  return { token: (match[1] ?? "").trim() };
}
