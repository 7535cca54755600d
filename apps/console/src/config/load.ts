/**
 * Loading the console configuration: YAML -> env overrides -> schema -> cross-key rules -> frozen ConsoleConfig.
 * Every problem of a file is reported at once, each prefixed with its full key path.
 */
import { applyEnvOverrides, parseYamlSource, readConfigFile, validateConfig } from "@svc/core";
import { applyRules } from "./rules.ts";
import { type ConsoleConfig, consoleConfigSchema } from "./schema.ts";

/** Environment variable -> dotted key path it overrides. */
export const CONSOLE_ENV_OVERRIDES: Readonly<Record<string, string>> = {
  SVC_LOG_LEVEL: "logLevel",
  SVC_LOG_FORMAT: "logFormat",
};

/** A loaded configuration (deeply frozen) and the warnings to log. */
export interface ConsoleLoadResult {
  config: ConsoleConfig;
  warnings: string[];
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
  return parseConsoleConfig(readConfigFile(path), env, path);
}

/** Parses configuration text (YAML). An empty document means all defaults, with a warning. */
export function parseConsoleConfig(
  text: string,
  env: NodeJS.ProcessEnv = process.env,
  source?: string,
): ConsoleLoadResult {
  const where = source ? `in ${source}` : undefined;
  let raw = parseYamlSource(text, where);
  const warnings: string[] = [];
  if (raw === null || raw === undefined) {
    if (text.trim() !== "") warnings.push(`${source ?? "config"}: empty configuration, using defaults`);
    raw = {};
  }
  const fromEnv = applyEnvOverrides(raw, env, CONSOLE_ENV_OVERRIDES);
  const config = validateConfig(consoleConfigSchema, raw, { fromEnv, rules: applyRules, where });
  return { config, warnings };
}
