/** Text from outside (the controller, the Kubernetes API) made storable in PostgreSQL text and jsonb columns. */

// a NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one
const UNSTORABLE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `s` with every NUL and lone surrogate replaced by U+FFFD. */
export function storable(s: string): string {
  return s.replace(UNSTORABLE, "\uFFFD");
}
