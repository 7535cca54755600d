/**
 * Loading the console configuration: YAML -> `console:` section lifted -> env overrides -> schema -> cross-key
 * rules -> frozen ConsoleConfig. Every problem of a file is reported at once, each prefixed with its full key path.
 *
 * The file's keys are the spec's (§8.4): `console.*` (replicas, controller, prometheus, auth, ...), `database.*`,
 * `redis.*`, and the listener and log keys at the top level (`httpPort`, `metricsPort`, `logLevel`, `logFormat`).
 * Before 2.5.0 the `console.*` keys sat at the top level without the prefix: those names are still accepted for one
 * release, each with a deprecation warning (a key set both ways is an error). The loaded ConsoleConfig keeps the
 * flat shape (config.auth, config.controller, ...).
 */
import { applyEnvOverrides, ConfigError, parseYamlSource, readConfigFile, validateConfig } from "@svc/core";
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
  const issues: string[] = [];
  const lifted = liftConsoleSection(raw, warnings, issues);
  const fromEnv = applyEnvOverrides(lifted.flat, env, CONSOLE_ENV_OVERRIDES);
  try {
    const config = validateConfig(consoleConfigSchema, lifted.flat, {
      fromEnv,
      rules: applyRules,
      where,
      issues,
    });
    return { config, warnings };
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    // name the key as the file spells it: console.auth.mode when it came from the console section
    const named = e.issues.map((i) => {
      const head = /^([A-Za-z]+)[.:[]/.exec(i)?.[1];
      return head !== undefined && lifted.fromSection.has(head) && !i.startsWith("console.")
        ? `console.${i}`
        : i;
    });
    throw new ConfigError(named, where);
  }
}

/** The keys of the `console:` section (spec §8.4), top-level keys of the file before 2.5.0. */
export const CONSOLE_SECTION_KEYS: readonly string[] = [
  "replicas",
  "controller",
  "prometheus",
  "auth",
  "clientAddress",
  "websocket",
  "webhooks",
  "rateLimit",
  "kubernetesContext",
  "alerts",
];

/**
 * Moves the `console:` section's keys to the top level (the schema's flat shape); a pre-2.5 top-level key stays and
 * gets a deprecation warning. `console.enabled` (a chart value: the console is deployed) is accepted and ignored.
 */
function liftConsoleSection(
  raw: unknown,
  warnings: string[],
  issues: string[],
): { flat: unknown; fromSection: Set<string> } {
  const fromSection = new Set<string>();
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return { flat: raw, fromSection };
  const { console: section, ...flat } = raw as Record<string, unknown>;
  for (const key of CONSOLE_SECTION_KEYS) {
    if (key in flat)
      warnings.push(
        `${key}: deprecated key name, use console.${key} (the old name is accepted until the next release)`,
      );
  }
  if (section === undefined || section === null) return { flat, fromSection };
  if (typeof section !== "object" || Array.isArray(section)) {
    issues.push("console: must be a mapping");
    return { flat, fromSection };
  }
  for (const [key, value] of Object.entries(section as Record<string, unknown>)) {
    if (key === "enabled") continue;
    if (!CONSOLE_SECTION_KEYS.includes(key)) {
      issues.push(`console.${key}: unknown key`);
    } else if (key in flat) {
      issues.push(`console.${key}: set console.${key} or the deprecated ${key}, not both`);
    } else {
      flat[key] = value;
      fromSection.add(key);
    }
  }
  return { flat, fromSection };
}
