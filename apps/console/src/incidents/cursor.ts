/**
 * The incident list cursor (`cursor` / `nextCursor` of GET /api/v1/incidents): the keyset position of the last row
 * of a page, `<openedAt ms>:<incident id>`, base64url-encoded (opaque to callers). Anything that does not decode to
 * exactly that form is refused (400).
 */
import { InvalidInputError } from "../errors.ts";

/** A keyset position: incidents opened before it (by time, then id descending) come after it. */
export interface IncidentKey {
  openedAt: number;
  id: string;
}

const FORM = /^(\d{1,16}):([0-9a-f-]{1,64})$/;

/** The cursor naming `key`. */
export function encodeIncidentCursor(key: IncidentKey): string {
  return Buffer.from(`${key.openedAt}:${key.id}`, "utf8").toString("base64url");
}

/** The key a cursor names; InvalidInputError (400) for anything this console did not issue. */
export function decodeIncidentCursor(cursor: string): IncidentKey {
  const m = FORM.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  const key = m ? { openedAt: Number(m[1]), id: m[2] ?? "" } : undefined;
  if (!key || !Number.isSafeInteger(key.openedAt) || encodeIncidentCursor(key) !== cursor)
    throw new InvalidInputError("query.cursor: not a cursor this console issued");
  return key;
}
