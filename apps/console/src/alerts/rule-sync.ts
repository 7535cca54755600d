/**
 * The places the console's alert rules are written (the rule file, the PrometheusRule object) behind one face:
 * sync() writes every configured place, status() reports how the last attempts went together. Each place
 * serialises its own writes (coalesce()).
 */
import type { AlertRuleSync } from "@svc/contract";

/** A place the rules are written to. */
export interface RuleSink {
  /** Writes the current rules; resolves when a write that started after this call has finished (never rejects). */
  sync(): Promise<void>;
  /** How the last attempt went. */
  status(): AlertRuleSync;
}

/**
 * Serialises `once`: a call while one runs is coalesced into one more run after it; the promise resolves when a run
 * that started after the call has finished.
 */
export function coalesce(once: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  let again = false;
  return () => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await once();
      } while (again);
      running = undefined;
    })();
    return running;
  };
}

/** The sinks as one: unconfigured when none is, failed when any failed (errors named by sink), pending while any is. */
export function allSinks(sinks: readonly { name: string; sink: RuleSink }[]): RuleSink {
  return {
    sync: async () => {
      await Promise.all(sinks.map((s) => s.sink.sync()));
    },
    status: () => {
      const states = sinks
        .map((s) => ({ name: s.name, st: s.sink.status() }))
        .filter((s) => s.st.state !== "unconfigured");
      if (states.length === 0) return { state: "unconfigured", at: null, error: null };
      const at = states
        .map((s) => s.st.at)
        .reduce<string | null>((m, a) => (a && (!m || a > m) ? a : m), null);
      const failed = states.filter((s) => s.st.state === "failed");
      if (failed.length > 0)
        return {
          state: "failed",
          at,
          error: failed.map((s) => (states.length > 1 ? `${s.name}: ${s.st.error}` : s.st.error)).join("; "),
        };
      if (states.some((s) => s.st.state === "pending")) return { state: "pending", at, error: null };
      return { state: "synced", at, error: null };
    },
  };
}
