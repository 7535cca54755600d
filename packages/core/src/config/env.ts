/** Environment overrides of config keys (spec §8.2), applied to the raw document before validation. */
import { setAt, splitKeyPath } from "./keypath.ts";

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
 * Writes every non-empty override from `env` into `raw` (a mapping) and returns key path -> variable name for
 * the overrides applied, so errors can say where a bad value came from. Empty variables are ignored.
 */
export function applyEnvOverrides(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): Map<string, string> {
  const applied = new Map<string, string>();
  for (const [name, key] of Object.entries(ENV_OVERRIDES)) {
    const value = env[name];
    if (value === undefined || value === "") continue;
    setAt(raw, splitKeyPath(key), value);
    applied.set(key, name);
  }
  return applied;
}
