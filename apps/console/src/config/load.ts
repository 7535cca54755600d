/**
 * Loading the console configuration: YAML -> env overrides -> schema -> cross-key rules -> frozen ConsoleConfig.
 * Every problem of a file is reported at once, each prefixed with its full key path.
 */
import { readFileSync } from "node:fs";
import { ConfigError } from "@svc/core";
import YAML from "yaml";
import type { core } from "zod";
import { applyRules } from "./rules.ts";
import { type ConsoleConfig, consoleConfigSchema } from "./schema.ts";

/** Environment variable -> key path it overrides. */
export const CONSOLE_ENV_OVERRIDES: Readonly<Record<string, string[]>> = {
  SVC_LOG_LEVEL: ["logLevel"],
  SVC_LOG_FORMAT: ["logFormat"],
};

/** A loaded configuration (deeply frozen) and the warnings to log. */
export interface ConsoleLoadResult {
  config: ConsoleConfig;
  warnings: string[];
}

type Seg = string | number;

/** Renders segments as a key path ("auth.header.trustedProxyCIDRs[0]"); the empty path is "(root)". */
export function formatKeyPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else out += out === "" ? String(seg) : `.${String(seg)}`;
  }
  return out === "" ? "(root)" : out;
}

/**
 * Reads and validates the file at `path` (undefined = all defaults). Throws ConfigError (from @svc/core) listing
 * every problem, or naming the path when it cannot be read.
 */
export function loadConsoleConfig(
  path: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): ConsoleLoadResult {
  if (path === undefined) return parseConsoleConfig("", env);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? String(e);
    throw new ConfigError([`${path}: cannot read config file (${code})`], `in ${path}`);
  }
  return parseConsoleConfig(text, env, path);
}

/** Parses configuration text (YAML). An empty document means all defaults, with a warning. */
export function parseConsoleConfig(
  text: string,
  env: NodeJS.ProcessEnv = process.env,
  source?: string,
): ConsoleLoadResult {
  const where = source ? `in ${source}` : undefined;
  const doc = YAML.parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      doc.errors.map((e) => {
        const pos = e.linePos?.[0];
        const msg = e.message.split(" at line ")[0] ?? e.message;
        return pos ? `line ${pos.line}, column ${pos.col}: ${msg}` : msg;
      }),
      where,
    );
  }
  const warnings: string[] = [];
  let raw: unknown = doc.toJS();
  if (raw === null || raw === undefined) {
    if (text.trim() !== "") warnings.push(`${source ?? "config"}: empty configuration, using defaults`);
    raw = {};
  }
  const fromEnv = new Map<string, string>();
  if (isMapping(raw)) {
    for (const [name, path] of Object.entries(CONSOLE_ENV_OVERRIDES)) {
      const value = env[name];
      if (value === undefined || value === "") continue;
      setAt(raw, path, value);
      fromEnv.set(path.join("."), name);
    }
  }
  return validate(raw, fromEnv, warnings, where);
}

function validate(
  raw: unknown,
  fromEnv: Map<string, string>,
  warnings: string[],
  where?: string,
): ConsoleLoadResult {
  const issues: string[] = [];
  let work: unknown = structuredClone(raw);
  let result = consoleConfigSchema.safeParse(work);
  const repaired: string[] = [];
  if (!result.success) issues.push(...result.error.issues.flatMap((i) => formatIssue(i, fromEnv)));
  // Drop each invalid value (its default takes over) and parse again, so the cross-key rules still run and every
  // problem of the file is reported at once; rules touching a repaired key stay quiet.
  for (let round = 0; round < 3 && !result.success; round++) {
    for (const iss of result.error.issues) work = repair(work, iss, repaired);
    result = consoleConfigSchema.safeParse(work);
  }
  if (result.success) {
    for (const ri of applyRules(result.data)) {
      if ([ri.path, ...ri.related].some((p) => overlaps(p, repaired))) continue;
      issues.push(`${ri.path}: ${ri.message}`);
    }
    if (issues.length === 0) return { config: deepFreeze(result.data), warnings };
  }
  throw new ConfigError(issues, where);
}

function formatIssue(iss: core.$ZodIssue, fromEnv: Map<string, string>): string[] {
  if (iss.code === "unrecognized_keys")
    return iss.keys.map((k) => `${formatKeyPath([...iss.path, k])}: unknown key`);
  const path = formatKeyPath(iss.path);
  const env = fromEnv.get(path);
  return [`${path}: ${iss.message}${env ? ` (from ${env})` : ""}`];
}

function repair(work: unknown, iss: core.$ZodIssue, repaired: string[]): unknown {
  if (iss.code === "unrecognized_keys") {
    for (const k of iss.keys) deleteAt(work, [...(iss.path as Seg[]), k]);
    return work;
  }
  const segs = iss.path as Seg[];
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

function isMapping(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function setAt(root: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let cur = root;
  path.forEach((seg, i) => {
    if (i === path.length - 1) cur[seg] = value;
    else {
      if (!isMapping(cur[seg])) cur[seg] = {};
      cur = cur[seg] as Record<string, unknown>;
    }
  });
}

function deleteAt(root: unknown, path: readonly Seg[]): void {
  let cur: unknown = root;
  for (const seg of path.slice(0, -1)) {
    if (cur === null || typeof cur !== "object") return;
    cur = (cur as Record<Seg, unknown>)[seg];
  }
  const last = path[path.length - 1];
  if (cur !== null && typeof cur === "object" && last !== undefined)
    delete (cur as Record<Seg, unknown>)[last];
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
