/** Key-path helpers: "checkers.http.targets[0].url" <-> ["checkers", "http", "targets", 0, "url"]. */

/** One step of a key path: a mapping key or a list index. */
export type PathSegment = string | number;

/** Renders segments as a key path; the empty path is "(root)". */
export function formatKeyPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else out += out === "" ? String(seg) : `.${String(seg)}`;
  }
  return out === "" ? "(root)" : out;
}

/** Splits a dotted key path (no list indexes) into segments. */
export function splitKeyPath(path: string): string[] {
  return path.split(".");
}

/** True for a YAML mapping: a non-null object that is not an array. */
export function isMapping(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function isRecord(v: unknown): v is Record<PropertyKey, unknown> {
  return v !== null && typeof v === "object";
}

/** Reads the value at `path`, undefined when any step is missing. */
export function getAt(root: unknown, path: readonly PathSegment[]): unknown {
  let cur = root;
  for (const seg of path) {
    if (!isRecord(cur)) return undefined;
    cur = cur[seg];
  }
  return cur;
}

/** Sets the value at `path`, creating mappings on the way (replacing non-mappings). */
export function setAt(root: Record<string, unknown>, path: readonly PathSegment[], value: unknown): void {
  let cur: Record<PropertyKey, unknown> = root;
  path.forEach((seg, i) => {
    if (i === path.length - 1) {
      cur[seg] = value;
      return;
    }
    const next = cur[seg];
    if (!isRecord(next)) cur[seg] = {};
    cur = cur[seg] as Record<PropertyKey, unknown>;
  });
}

/** Removes the key at `path` if present. */
export function deleteAt(root: unknown, path: readonly PathSegment[]): void {
  const parent = getAt(root, path.slice(0, -1));
  const last = path[path.length - 1];
  if (isRecord(parent) && last !== undefined) delete parent[last];
}

/** Freezes `value` and everything reachable from it; returns it. */
export function deepFreeze<T>(value: T): T {
  if (isRecord(value) && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
