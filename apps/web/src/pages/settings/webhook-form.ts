/** Pure parts of the Webhooks section: the 503 of a console without the encryption key, outcomes in words. */
import type { WebhookEndpoint } from "@svc/contract";
import { ApiError } from "../../api/client.tsx";

/** What to tell a person when the console has no webhook encryption key (spec §6.3 point 8). */
export const NO_KEY_TEXT =
  "This console has no webhook encryption key, so it cannot store signing secrets or send tests. An administrator " +
  "must set console.webhooks.existingSecret (a Secret holding base64 of 32 random bytes; the console reads it as " +
  "webhooks.encryptionKeyFile) and restart the console.";

/** True for the 503 a console without webhooks.encryptionKeyFile answers. */
export function isNoKey(e: unknown): boolean {
  return e instanceof ApiError && e.status === 503 && /encryptionKeyFile/.test(e.message);
}

/** The last outcome of an endpoint in words. */
export function outcomeText(o: WebhookEndpoint["lastOutcome"]): string {
  if (!o) return "never sent";
  const when = new Date(o.at).toLocaleString();
  return o.ok
    ? `ok (HTTP ${o.status ?? "?"}) at ${when}`
    : `${o.error ?? "failed"} at ${when} (attempt ${o.attempt})`;
}
