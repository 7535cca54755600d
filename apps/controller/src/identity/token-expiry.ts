/**
 * The `exp` claim of a JWT (ms since epoch), read without verifying the signature: only to bound how long the
 * API server's verdict on the token is reused, never to decide whether it is valid. undefined when the token is
 * not a JWT with a numeric `exp`.
 */
export function tokenExpiry(token: string): number | undefined {
  const parts = token.split(".");
  if (parts.length !== 3 || (parts[1]?.length ?? 0) > 8192) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1] ?? "", "base64url").toString("utf8")) as unknown;
    if (typeof claims !== "object" || claims === null) return undefined;
    const exp = (claims as { exp?: unknown }).exp;
    return typeof exp === "number" && Number.isFinite(exp) ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}
