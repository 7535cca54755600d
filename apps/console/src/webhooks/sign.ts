/** The webhook signature of spec §6.3 point 1: `sha256=<hex>`, HMAC-SHA256 of the exact raw body bytes. */
import { createHmac, timingSafeEqual } from "node:crypto";

/** Header carrying the signature. */
export const SIGNATURE_HEADER = "X-Svc-Signature";

/** `sha256=<hex>` of `body` under `secret`. */
export function signBody(secret: string, body: Uint8Array): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/** True when `header` is the signature of `body` under `secret` (what a receiver checks before parsing). */
export function verifySignature(secret: string, body: Uint8Array, header: string | undefined): boolean {
  if (!header) return false;
  const want = Buffer.from(signBody(secret, body));
  const got = Buffer.from(header);
  return want.length === got.length && timingSafeEqual(want, got);
}
