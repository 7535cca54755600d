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
  const values = metadata.get("authorization");
  if (values.length === 0) return "missing bearer token";
  if (values.length > 1) return "invalid bearer token";
  const raw = values[0];
  const value = typeof raw === "string" ? raw : (raw?.toString("utf8") ?? "");
  const match = /^bearer\s+(.+)$/i.exec(value.trim());
  if (match === null) return "missing bearer token";
  const given = (match[1] ?? "").trim();
  return timingSafeEqual(digest(given), digest(expected)) ? undefined : "invalid bearer token";
}
