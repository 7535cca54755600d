/** Cookie parsing and the session / CSRF cookie attributes of spec §5.4. */

/** Parses a Cookie header into name -> value (first occurrence wins). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!header) return out;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    if (name !== "" && !out.has(name)) out.set(name, value);
  }
  return out;
}

/** Name of the CSRF cookie for a session cookie name: `..._session` -> `..._csrf`, else `<name>_csrf`. */
export function csrfCookieName(sessionCookie: string): string {
  return sessionCookie.endsWith("_session")
    ? `${sessionCookie.slice(0, -"_session".length)}_csrf`
    : `${sessionCookie}_csrf`;
}

/** Name of the OIDC sign-in state cookie: `..._session` -> `..._oidc`, else `<name>_oidc`. */
export function oidcStateCookieName(sessionCookie: string): string {
  return sessionCookie.endsWith("_session")
    ? `${sessionCookie.slice(0, -"_session".length)}_oidc`
    : `${sessionCookie}_oidc`;
}

/** Header the SPA echoes the CSRF cookie in on state-changing requests. */
export const CSRF_HEADER = "x-csrf-token";

/** Attributes shared by both cookies. */
export interface CookieOptions {
  secure: boolean;
  /** Max-Age in seconds; 0 clears */
  maxAgeSeconds: number;
  httpOnly: boolean;
}

/** Serialises one Set-Cookie value: Path=/, SameSite=Lax, no Domain (required by the __Host- prefix). */
export function serializeCookie(name: string, value: string, opts: CookieOptions): string {
  const parts = [
    `${name}=${value}`,
    "Path=/",
    `Max-Age=${Math.max(0, Math.floor(opts.maxAgeSeconds))}`,
    "SameSite=Lax",
  ];
  if (opts.httpOnly) parts.push("HttpOnly");
  if (opts.secure) parts.push("Secure");
  return parts.join("; ");
}
