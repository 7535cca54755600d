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

/** Deepest nesting of objects and arrays a JSON value a caller sends may hold (bundles, check `params`). */
export const JSON_MAX_DEPTH = 16;

const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/**
 * The first problem of a JSON value a caller sent that no row could store, or undefined: a key that names an
 * object's prototype machinery, a key or text with NUL or a lone surrogate, nesting deeper than `maxDepth`. The
 * walk stops at that depth, so hostile nesting costs no more than `maxDepth` frames (a deeper walk than this one,
 * e.g. a recursive check of every string, would overflow the stack and answer 500 instead of 400).
 */
export function jsonValueProblem(
  v: unknown,
  path: string,
  depth = 0,
  maxDepth = JSON_MAX_DEPTH,
): string | undefined {
  if (typeof v === "string") return isStorable(v) ? undefined : `${path}: text with NUL or a lone surrogate`;
  if (v === null || typeof v !== "object") return undefined;
  if (depth >= maxDepth) return `${path}: nested deeper than ${maxDepth}`;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const p = jsonValueProblem(v[i], `${path}[${i}]`, depth + 1, maxDepth);
      if (p) return p;
    }
    return undefined;
  }
  for (const k of Object.keys(v)) {
    if (FORBIDDEN_KEYS.has(k)) return `${path}: key ${JSON.stringify(k)} is not allowed`;
    if (!isStorable(k)) return `${path}: a key with NUL or a lone surrogate`;
    const p = jsonValueProblem((v as Record<string, unknown>)[k], `${path}.${k}`, depth + 1, maxDepth);
    if (p) return p;
  }
  return undefined;
}

/** True when `s` holds a control character other than line feed, carriage return and tab (spec §2.9 notes). */
export function hasForbiddenControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || c === 0x7f) return true;
  }
  return false;
}

/**
 * True when `s` holds a character that changes how text after it is shown rather than being shown itself: a C0
 * control (tab and line breaks too: a name is one line), DEL, a C1 control (U+0080-U+009F, e.g. CSI), or a
 * bidirectional formatting character (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069). Printed into an audit
 * row, a terminal or a page, these recolour, clear or reorder what follows (an ESC sequence, a right-to-left
 * override turning `exe.txt` around).
 */
export function hasDisplayControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true;
    if (c === 0x061c || c === 0x200e || c === 0x200f) return true;
    if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) return true;
  }
  return false;
}

/**
 * A name of at most `max` units (a record's name, a username, a subject, a role, a node, a scope): storable, and
 * without display controls (hasDisplayControl), refused with 400 like NUL; names flow into audit details.
 */
export function nameText(max: number): z.ZodString {
  return text(max).refine((s) => !hasDisplayControl(s), {
    message: "must not contain control or bidirectional formatting characters",
  });
}

/** Free text of at most `max` units: storable, line breaks and tabs kept, any other control character refused. */
export function noteText(max: number): z.ZodString {
  return text(max).refine((s) => !hasForbiddenControl(s), {
    message: "must not contain control characters other than line breaks and tabs",
  });
}
