/** Environment overrides of config keys (spec §8.2), applied to the raw document before validation. */
import { isMapping, setAt, splitKeyPath } from "./keypath.ts";

/** Environment variable -> key path it overrides. */
export const ENV_OVERRIDES: Readonly<Record<string, string>> = {
  SVC_METRICS_PREFIX: "metricsPrefix",
  SVC_LOG_LEVEL: "logLevel",
  SVC_LOG_FORMAT: "logFormat",
  SVC_CONTROLLER_ADDRESS: "controllerAddress",
  SVC_FAILURE_DOMAIN_LABEL: "failureDomainLabel",
  SVC_NODE_NAME: "agent.nodeName",
  SVC_ADVERTISE_ADDRESS: "agent.advertiseAddress",
  SVC_ZONE: "agent.zone",
};

/** Environment variable naming the config file. */
export const CONFIG_PATH_ENV = "SVC_CONFIG";

/**
 * Writes every non-empty override from `env` into `raw` and returns key path -> variable name for the overrides
 * applied, so errors can say where a bad value came from. Empty variables are ignored; a `raw` that is not a
 * mapping is left alone (empty result). `overrides` maps variable -> dotted key path (default ENV_OVERRIDES).
 */
export function applyEnvOverrides(
  raw: unknown,
  env: NodeJS.ProcessEnv,
  overrides: Readonly<Record<string, string>> = ENV_OVERRIDES,
): Map<string, string> {
  const applied = new Map<string, string>();
  if (!isMapping(raw)) return applied;
  for (const [name, key] of Object.entries(overrides)) {
    const value = env[name];
    if (value === undefined || value === "") continue;
    setAt(raw, splitKeyPath(key), value);
    applied.set(key, name);
  }
  return applied;
}
