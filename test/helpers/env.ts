import { existsSync } from "node:fs";

/** Why a test that needs root (network namespaces) cannot run here, or undefined when it can. */
export function needsRoot(): string | undefined {
  return process.getuid?.() === 0 ? undefined : "needs root for network namespaces";
}

/** Why a test that needs a binary cannot run here, or undefined when it can. */
export function needsBinary(path: string): string | undefined {
  return existsSync(path) ? undefined : `${path} is not installed`;
}

/**
 * The skip option for node:test. With CI=true nothing may skip: the reason becomes a failure instead, so a
 * missing prerequisite on CI is loud.
 */
export function skipUnless(...reasons: (string | undefined)[]): { skip?: string } {
  const reason = reasons.find((r) => r !== undefined);
  if (!reason) return {};
  if (process.env.CI === "true") throw new Error(`CI=true but test prerequisite missing: ${reason}`);
  return { skip: reason };
}

/** Polls until `fn` returns a value that is not undefined, or fails after `timeoutMs` with the last reason. */
export async function eventually<T>(
  what: string,
  fn: () => Promise<T | undefined>,
  timeoutMs: number,
  everyMs = 500,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms: ${what}${last ? ` (last error: ${String(last)})` : ""}`,
      );
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
