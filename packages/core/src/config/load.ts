/**
 * Loading the configuration file: YAML -> deprecated keys -> env overrides -> schema -> cross-key rules -> frozen
 * SvcConfig. Every problem of a file is reported at once, each prefixed with its full key path.
 */
import { readFileSync } from "node:fs";
import { hostname as osHostname } from "node:os";
import YAML from "yaml";
import type { core } from "zod";
import { applyEnvOverrides, CONFIG_PATH_ENV } from "./env.ts";
import { deepFreeze, deleteAt, formatKeyPath, type PathSegment } from "./keypath.ts";
import { applyRules } from "./rules.ts";
import { configSchema } from "./schema.ts";
import type { SvcConfig } from "./types.ts";

/** Thrown for an unreadable, unparsable or invalid configuration; `issues` holds one line per problem. */
export class ConfigError extends Error {
  readonly issues: string[];
  constructor(issues: string[], source?: string) {
    super(`invalid configuration${source ? ` ${source}` : ""}:\n${issues.map((i) => `  ${i}`).join("\n")}`);
    this.name = "ConfigError";
    this.issues = issues;
  }
}

/** A loaded configuration (deeply frozen) and the warnings to log. */
export interface LoadResult {
  config: SvcConfig;
  warnings: string[];
}

/** Where to load from. `text` wins over `path`; `path` wins over env SVC_CONFIG; neither = all defaults. */
export interface LoadOptions {
  path?: string;
  /** default process.env */
  env?: NodeJS.ProcessEnv;
  text?: string;
  /** default of agent.nodeName; default os.hostname() */
  hostname?: string;
}

/**
 * Loads and validates the configuration. A path that cannot be read is a ConfigError naming the path.
 * Throws ConfigError listing every problem.
 */
export function loadConfig(opts: LoadOptions = {}): LoadResult {
  const env = opts.env ?? process.env;
  if (opts.text !== undefined) return parseConfig(opts.text, env, opts.hostname);
  const path = opts.path ?? (env[CONFIG_PATH_ENV] || undefined);
  if (path === undefined) return validate({}, env, opts.hostname ?? osHostname(), [], []);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? String(e);
    throw new ConfigError([`${path}: cannot read config file (${code})`], `in ${path}`);
  }
  return parseConfig(text, env, opts.hostname, path);
}

/** Parses configuration text (YAML). Same result and errors as loadConfig. */
export function parseConfig(
  text: string,
  env: NodeJS.ProcessEnv = process.env,
  hostname: string = osHostname(),
  source?: string,
): LoadResult {
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
  const issues: string[] = [];
  let raw: unknown = doc.toJS();
  if (raw === null || raw === undefined) {
    warnings.push(`${source ?? "config"}: empty configuration ignored, using defaults`);
    raw = {};
  }
  stripDeprecated(raw, warnings, issues);
  return validate(raw, env, hostname, warnings, issues, where);
}

/** The configuration with every default (agent.nodeName = os.hostname()), deeply frozen. */
export function defaultConfig(hostname: string = osHostname()): SvcConfig {
  return validate({}, {}, hostname, [], []).config;
}

function isMapping(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function stripDeprecated(raw: unknown, warnings: string[], issues: string[]): void {
  if (!isMapping(raw)) return;
  if ("mode" in raw) {
    warnings.push("mode: deprecated and ignored (use topology.mode)");
    delete raw.mode;
  }
  if (!("observability" in raw)) return;
  const obs = raw.observability;
  if (isMapping(obs)) {
    for (const key of Object.keys(obs)) {
      if (key === "otel") warnings.push("observability.otel: deprecated and ignored");
      else issues.push(`observability.${key}: unknown key`);
    }
  } else if (obs !== null) {
    issues.push("observability: must be a mapping");
  }
  delete raw.observability;
}

function validate(
  raw: unknown,
  env: NodeJS.ProcessEnv,
  hostname: string,
  warnings: string[],
  issues: string[],
  where?: string,
): LoadResult {
  const fromEnv = isMapping(raw) ? applyEnvOverrides(raw, env) : new Map<string, string>();
  const schema = configSchema(hostname);
  let work: unknown = structuredClone(raw);
  let result = schema.safeParse(work);
  const repaired: string[] = [];
  if (!result.success) issues.push(...result.error.issues.flatMap((i) => formatIssue(i, fromEnv)));
  // Replace each invalid value with its default and parse again, so cross-key rules still run and every
  // problem of the file is reported at once.
  for (let round = 0; round < 3 && !result.success; round++) {
    for (const iss of result.error.issues) work = repair(work, iss, repaired);
    result = schema.safeParse(work);
  }
  if (result.success) {
    const config: SvcConfig = result.data;
    const rules = applyRules(config);
    warnings.push(...rules.warnings);
    for (const ri of rules.issues) {
      if ([ri.path, ...ri.related].some((p) => overlaps(p, repaired))) continue;
      issues.push(`${ri.path}: ${ri.message}${envNote(ri.path, fromEnv)}`);
    }
    if (issues.length === 0) return { config: deepFreeze(config), warnings };
  }
  throw new ConfigError(issues, where);
}

function envNote(path: string, fromEnv: Map<string, string>): string {
  const name = fromEnv.get(path);
  return name ? ` (from ${name})` : "";
}

function formatIssue(iss: core.$ZodIssue, fromEnv: Map<string, string>): string[] {
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
