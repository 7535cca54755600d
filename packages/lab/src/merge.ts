/** A plain (non-array) object: what deepMerge merges into rather than replaces. */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Merges `over` into `base` recursively (plain objects merge, everything else replaces); neither is changed. Keys
 * are own properties only and are defined, not assigned, so a `__proto__` key from a parsed file is an ordinary
 * key of the result and never its prototype.
 */
export function deepMerge(
  base: Record<string, unknown>,
  over: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const put = (k: string, v: unknown) =>
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  for (const [k, v] of Object.entries(base)) put(k, v);
  for (const [k, v] of Object.entries(over)) {
    const b = Object.hasOwn(out, k) ? out[k] : undefined;
    put(k, isPlainObject(b) && isPlainObject(v) ? deepMerge(b, v) : v);
  }
  return out;
}
