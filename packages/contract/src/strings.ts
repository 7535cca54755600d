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
