/**
 * Schema validation that reports every problem of a file at once: zod issues as "key.path: message", then the
 * cross-key rules, run on a re-parse in which each invalid value was dropped so that its default takes over.
 */
import { safeParse } from "zod/mini";
import type * as core from "zod/v4/core";
import { ConfigError } from "./error.ts";
import { deepFreeze, deleteAt, formatKeyPath, type PathSegment } from "./keypath.ts";
import type { RuleIssue } from "./rules.ts";

/** What validateConfig needs besides the schema and the raw document. */
export interface ValidateOptions<T> {
  /** key path -> environment variable that set it (applyEnvOverrides); errors there end in ` (from VAR)` */
  fromEnv: ReadonlyMap<string, string>;
  /** cross-key rules on a schema-valid value (may normalise it in place); a rule blaming a repaired key is dropped */
  rules: (value: T) => readonly RuleIssue[];
  /** issues found before validation, listed first */
  issues?: readonly string[];
  /** ConfigError source, e.g. `in /etc/svc/config.yaml` */
  where?: string;
}

/**
 * Parses `raw` (not modified) with `schema` and runs `opts.rules`. Returns the value deeply frozen, or throws
 * ConfigError listing `opts.issues`, then every schema issue (`key.path: message`, unknown keys as
 * `key.path: unknown key`), then every rule issue (`path: message`).
 */
export function validateConfig<S extends core.$ZodType>(
  schema: S,
  raw: unknown,
  opts: ValidateOptions<core.output<S>>,
): core.output<S> {
  const { fromEnv } = opts;
  const issues = [...(opts.issues ?? [])];
  let work: unknown = structuredClone(raw);
  let result = safeParse(schema, work);
  const repaired: string[] = [];
  if (!result.success) issues.push(...result.error.issues.flatMap((i) => formatIssue(i, fromEnv)));
  // Drop each invalid value (its default takes over) and parse again, so cross-key rules still run and every
  // problem of the file is reported at once; rules touching a repaired key stay quiet.
  for (let round = 0; round < 3 && !result.success; round++) {
    for (const iss of result.error.issues) work = repair(work, iss, repaired);
    result = safeParse(schema, work);
  }
  if (result.success) {
    const value: core.output<S> = result.data;
    for (const ri of opts.rules(value)) {
      if ([ri.path, ...ri.related].some((p) => overlaps(p, repaired))) continue;
      issues.push(`${ri.path}: ${ri.message}${envNote(ri.path, fromEnv)}`);
    }
    if (issues.length === 0) return deepFreeze(value);
  }
  throw new ConfigError(issues, opts.where);
}

function envNote(path: string, fromEnv: ReadonlyMap<string, string>): string {
  const name = fromEnv.get(path);
  return name ? ` (from ${name})` : "";
}

function formatIssue(iss: core.$ZodIssue, fromEnv: ReadonlyMap<string, string>): string[] {
  if (iss.code === "unrecognized_keys") {
    return iss.keys.map((k) => `${formatKeyPath([...iss.path, k])}: unknown key`);
  }
  const path = formatKeyPath(iss.path);
  return [`${path}: ${iss.message}${envNote(path, fromEnv)}`];
}

function repair(work: unknown, iss: core.$ZodIssue, repaired: string[]): unknown {
  if (iss.code === "unrecognized_keys") {
    for (const k of iss.keys) deleteAt(work, [...iss.path, k] as PathSegment[]);
    return work;
  }
  const segs = iss.path as PathSegment[];
  const firstIndex = segs.findIndex((s) => typeof s === "number");
  const target = firstIndex < 0 ? segs : segs.slice(0, firstIndex);
  repaired.push(target.join("."));
  if (target.length === 0) return {};
  deleteAt(work, target);
  return work;
}

function overlaps(path: string, repaired: string[]): boolean {
  return repaired.some((r) => r === "" || r === path || path.startsWith(`${r}.`) || r.startsWith(`${path}.`));
}
