/**
 * Scope text of events and annotations (spec §2.11, §4.4): a node name, or a pair written `<source>-><destination>`.
 * A pair typed `a->b`, `a => b` or `a > b` is the same pair; filters match case-insensitively as a substring, the
 * needle normalised by the contract's normalizeScope (the feed filter in the browser uses the same function).
 */
import { normalizeScope } from "@svc/contract";

/** Longest scope kept (longer text is cut). */
export const SCOPE_MAX = 512;

/** A scope as stored and shown: trimmed, every pair arrow written `->` without spaces, case kept. */
export function canonicalScope(scope: string): string {
  return scope
    .trim()
    .replace(/\s*(?:->|=>|>)\s*/g, "->")
    .slice(0, SCOPE_MAX);
}

/** The needle a `scope` filter searches stored (canonical) scopes for, lower-cased ("" matches everything). */
export function scopeNeedle(filter: string): string {
  return normalizeScope(filter);
}
