/**
 * OIDC sign-in state sealed in the browser (spec §5.7, §8.1): the PKCE verifier, `state`, `nonce` and return
 * path travel in a cookie, encrypted and authenticated with AES-256-GCM under a key derived (HKDF-SHA256) from the
 * client secret. Nothing is kept server-side, so any replica can finish a sign-in. A sealed state older than
 * OIDC_STATE_MAX_AGE_MS, sealed under another client secret (rotation), or tampered with does not open.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/** Bound on a sign-in's duration (spec §8.1: 5 minutes). */
export const OIDC_STATE_MAX_AGE_MS = 5 * 60_000;

/** What a sign-in carries from start to callback. */
export interface OidcSignInState {
  verifier: string;
  state: string;
  nonce: string;
  /** path to return to after sign-in; always starts with a single "/" */
  returnTo: string;
  /** epoch ms when sealed */
  issuedAt: number;
}

const VERSION = "v1";

function keyOf(clientSecret: string): Buffer {
  return Buffer.from(hkdfSync("sha256", clientSecret, "svc-console", "oidc sign-in state v1", 32));
}

/** Seals `s` under a key derived from `clientSecret`; the result is cookie-safe (base64url and dots). */
export function sealState(s: OidcSignInState, clientSecret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyOf(clientSecret), iv);
  cipher.setAAD(Buffer.from(VERSION));
  const body = Buffer.concat([cipher.update(JSON.stringify(s), "utf8"), cipher.final()]);
  return [VERSION, iv, body, cipher.getAuthTag()]
    .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
    .join(".");
}

/** Why a sealed state did not open. */
export type UnsealProblem = "missing" | "malformed" | "undecryptable" | "expired";

/** Opens a sealed state: the state, or the reason it is refused (never throws). */
export function openState(
  sealed: string | undefined,
  clientSecret: string,
  now: number,
): { ok: true; state: OidcSignInState } | { ok: false; problem: UnsealProblem } {
  if (!sealed) return { ok: false, problem: "missing" };
  const parts = sealed.split(".");
  if (parts.length !== 4 || parts[0] !== VERSION) return { ok: false, problem: "malformed" };
  const [, iv = "", body = "", tag = ""] = parts;
  let text: string;
  try {
    const decipher = createDecipheriv("aes-256-gcm", keyOf(clientSecret), Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(VERSION));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    text = Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString(
      "utf8",
    );
  } catch {
    return { ok: false, problem: "undecryptable" };
  }
  let s: OidcSignInState;
  try {
    s = JSON.parse(text) as OidcSignInState;
  } catch {
    return { ok: false, problem: "malformed" };
  }
  if (typeof s.issuedAt !== "number" || now - s.issuedAt > OIDC_STATE_MAX_AGE_MS || s.issuedAt > now + 60_000)
    return { ok: false, problem: "expired" };
  return { ok: true, state: s };
}

/** A safe return path: a local absolute path (no scheme, no `//host`, no backslash), else "/". */
export function safeReturnPath(p: unknown): string {
  if (typeof p !== "string" || p.length > 2048 || !p.startsWith("/") || p.startsWith("//")) return "/";
  if (p.includes("\\") || [...p].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) return "/";
  return p;
}
