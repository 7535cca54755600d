/**
 * The history cursor (`before` / `nextCursor` of GET /api/v1/events): the keyset position of the last row of a
 * page, `<at ms>:<row id>`, base64url-encoded (opaque to callers; docs/decisions.md "Event history"). Anything
 * that does not decode to exactly that form is refused (400).
 */
import { InvalidInputError } from "../errors.ts";

/** A keyset position: events older than it (by time, then row id) come after it. */
export interface EventKey {
  at: number;
  id: string;
}

const FORM = /^(\d{1,16}):([1-9]\d{0,18})$/;

/** The cursor naming `key`. */
export function encodeCursor(key: EventKey): string {
  return Buffer.from(`${key.at}:${key.id}`, "utf8").toString("base64url");
}

/** The key a cursor names; InvalidInputError (400) for anything this console did not issue. */
export function decodeCursor(cursor: string): EventKey {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const m = FORM.exec(text);
  if (
    !m ||
    encodeCursor({ at: Number(m[1]), id: m[2] ?? "" }) !== cursor ||
    !Number.isSafeInteger(Number(m[1]))
  )
    throw new InvalidInputError("query.before: not a cursor this console issued");
  return { at: Number(m[1]), id: m[2] ?? "" };
}
