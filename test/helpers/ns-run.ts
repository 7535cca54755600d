import {
  type NamespaceProcess,
  type RunInNamespaceOptions,
  runInNamespace,
  spawnInNamespace,
} from "@svc/lab";

/**
 * Runs a TypeScript script inside a network namespace (`ip netns exec NS node --import tsx SCRIPT args`) and
 * resolves its last stdout line parsed as JSON. Thin test-side name for @svc/lab's runInNamespace.
 */
export function nsRun<T = unknown>(
  namespace: string,
  script: string,
  args: readonly string[] = [],
  opts?: RunInNamespaceOptions,
): Promise<T> {
  return runInNamespace<T>(namespace, script, args, opts);
}

/** Starts a long-running script in a namespace; `ready` is its first stdout line as JSON. Stop it yourself. */
export function nsSpawn<T = unknown>(
  namespace: string,
  script: string,
  args: readonly string[] = [],
  opts?: RunInNamespaceOptions,
): NamespaceProcess<T> {
  return spawnInNamespace<T>(namespace, script, args, opts);
}
