/** Which keys each component applies without a restart (spec §8.2 "Hot reload"). */
import { deepFreeze, getAt, setAt, splitKeyPath } from "./keypath.ts";
import type { SvcConfig } from "./types.ts";

/** The binary that reads the config. */
export type Component = "agent" | "controller";

/** Key paths (and prefixes of key paths) that are live per component; every other key needs a restart. */
export const LIVE_KEYS: Readonly<Record<Component, readonly string[]>> = {
  agent: ["logLevel", "checkers"],
  controller: [
    "logLevel",
    "topology",
    "controller.agentTtl",
    "checkers.external.enabled",
    "checkers.external.allowedCidrs",
  ],
};

/** True when a change of leaf `path` can be applied live by `component`. */
export function isLiveKey(component: Component, path: string): boolean {
  return LIVE_KEYS[component].some((k) => path === k || path.startsWith(`${k}.`));
}

/**
 * The config to run after a reload: `running` with the live keys among `changed` taken from `next`.
 * Restart-only keys keep their running values, so a process never half-applies a restart key. Frozen.
 */
export function mergeLive(
  component: Component,
  running: SvcConfig,
  next: SvcConfig,
  changed: string[],
): SvcConfig {
  const merged = structuredClone(running) as SvcConfig & Record<string, unknown>;
  for (const key of changed) {
    if (!isLiveKey(component, key)) continue;
    const path = splitKeyPath(key);
    setAt(merged, path, structuredClone(getAt(next, path)));
  }
  return deepFreeze(merged);
}
