/**
 * The one rule for text a caller sends: bounded, and storable. A NUL byte or a lone UTF-16 surrogate cannot be
 * stored in a PostgreSQL text or JSON column, so a request carrying one would act and then fail to write its
 * audit row; the contract refuses such strings with 400 at the edge instead.
 */
import { z } from "zod";

// a NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one
const UNSTORABLE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when `s` can be stored as text (no NUL, no lone surrogate). */
export function isStorable(s: string): boolean {
  return !UNSTORABLE.test(s);
}

/** A string of at most `max` UTF-16 units that can be stored (no NUL, no lone surrogate). */
export function text(max: number): z.ZodString {
  return z
    .string()
    .max(max)
    .refine(isStorable, { message: "must not contain NUL or unpaired surrogate characters" });
}

/** True when `s` holds a control character other than line feed, carriage return and tab (spec §2.9 notes). */
export function hasForbiddenControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || c === 0x7f) return true;
  }
  return false;
}

/** Free text of at most `max` units: storable, line breaks and tabs kept, any other control character refused. */
export function noteText(max: number): z.ZodString {
  return text(max).refine((s) => !hasForbiddenControl(s), {
    message: "must not contain control characters other than line breaks and tabs",
  });
}
