/**
 * Loading the configuration file: YAML -> deprecated keys -> env overrides -> schema -> cross-key rules -> frozen
 * SvcConfig. Every problem of a file is reported at once, each prefixed with its full key path.
 */
import { hostname as osHostname } from "node:os";
import { applyEnvOverrides, CONFIG_PATH_ENV } from "./env.ts";
import { isMapping } from "./keypath.ts";
import { applyRules } from "./rules.ts";
import { configSchema } from "./schema.ts";
import type { SvcConfig } from "./types.ts";
import { validateConfig } from "./validate.ts";
import { parseYamlSource, readConfigFile } from "./yaml-source.ts";

/** Re-exported so `./load.ts` keeps offering the error its functions throw. */
export { ConfigError } from "./error.ts";

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
  return parseConfig(readConfigFile(path), env, opts.hostname, path);
}

/** Parses configuration text (YAML). Same result and errors as loadConfig. */
export function parseConfig(
  text: string,
  env: NodeJS.ProcessEnv = process.env,
  hostname: string = osHostname(),
  source?: string,
): LoadResult {
  const where = source ? `in ${source}` : undefined;
  let raw = parseYamlSource(text, where);
  const warnings: string[] = [];
  const issues: string[] = [];
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
  const config = validateConfig(configSchema(hostname), raw, {
    fromEnv: applyEnvOverrides(raw, env),
    issues,
    where,
    rules: (cfg) => {
      const rules = applyRules(cfg);
      warnings.push(...rules.warnings);
      return rules.issues;
    },
  });
  return { config, warnings };
}
