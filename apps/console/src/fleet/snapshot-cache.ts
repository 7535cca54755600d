/**
 * Stale-while-revalidate snapshots per key (a matrix per protocol). A snapshot younger than `freshMs` is served
 * as is; one younger than `staleMs` is served at once while one refresh runs in the background; an older one (or
 * none) waits for a refresh. At most one refresh per key runs at a time, so a burst of requests costs Prometheus
 * one set of queries. A failed background refresh keeps the old snapshot until it is `staleMs` old.
 * A snapshot that took long to compute stays fresh for twice its compute time, so Prometheus is never busy with
 * one key's refreshes more than a third of the time however often the key is asked for, and may be served stale
 * for four times its compute time, so a refresh started when it stopped being fresh ends before callers must wait.
 * keepWarm() refreshes, in the background, the snapshots someone asked for recently as soon as they stop being
 * fresh, so a viewer who comes back after a pause is not left waiting for a full refresh (500 nodes: seconds).
 */
/** After a failed refresh, the background one after it waits at least this long. */
export const RETRY_AFTER_FAILURE_MS = 10_000;

/** Runs `fn` every `ms` until the returned stop is called. */
export type Every = (fn: () => void, ms: number) => () => void;

/** Every on Node's setInterval; the timer does not keep the process alive. */
const nodeEvery: Every = (fn, ms) => {
  const timer = setInterval(fn, ms);
  timer.unref();
  return () => clearInterval(timer);
};

export class SnapshotCache<V> {
  private readonly entries = new Map<
    string,
    { value?: V; at: number; took?: number; pending?: Promise<V>; asked?: number; failed?: number }
  >();

  constructor(
    private readonly compute: (key: string) => Promise<V>,
    private readonly freshMs: number,
    private readonly staleMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The snapshot of `key` per the rules above. */
  get(key: string): Promise<V> {
    const e = this.entries.get(key);
    if (e) e.asked = this.now();
    const age = e ? this.now() - e.at : Number.POSITIVE_INFINITY;
    if (e?.value !== undefined && this.isFresh(e, age)) return Promise.resolve(e.value);
    if (e?.value !== undefined && age < Math.max(this.staleMs, 4 * (e.took ?? 0))) {
      this.refresh(key).catch(() => {});
      return Promise.resolve(e.value);
    }
    return this.refresh(key);
  }

  /**
   * Starts computing `key` now unless a refresh runs (a failure is dropped; the next get() retries). The returned
   * promise settles (never rejects) when that refresh has ended.
   */
  warm(key: string): Promise<void> {
    return this.refresh(key).then(
      () => {},
      () => {},
    );
  }

  /**
   * Every `periodMs`, refreshes each snapshot asked for (or warmed) within the last `idleMs` that is no longer
   * fresh. Keys that never computed are left to get(), so an unreachable backend is not polled, and after a failed
   * refresh the next background one waits RETRY_AFTER_FAILURE_MS (or the snapshot's fresh time, if longer).
   * Returns the stop. `every` runs the pass every `periodMs` and returns its stop (default setInterval, unref'd;
   * tests pass periods in virtual time).
   */
  keepWarm(periodMs: number, idleMs: number, every: Every = nodeEvery): () => void {
    return every(() => {
      const now = this.now();
      for (const [key, e] of this.entries)
        if (
          e.value !== undefined &&
          !e.pending &&
          now - (e.asked ?? e.at) < idleMs &&
          !this.isFresh(e, now - e.at) &&
          (e.failed === undefined || !this.isFresh(e, now - e.failed, RETRY_AFTER_FAILURE_MS))
        )
          this.warm(key);
    }, periodMs);
  }

  private isFresh(e: { took?: number }, age: number, floorMs = this.freshMs): boolean {
    return age < Math.max(floorMs, 2 * (e.took ?? 0));
  }

  private refresh(key: string): Promise<V> {
    const e = this.entries.get(key) ?? { at: 0, asked: this.now() };
    if (e.pending) return e.pending;
    const started = this.now();
    const pending = this.compute(key).then(
      (value) => {
        const at = this.now();
        this.entries.set(key, { value, at, took: at - started, asked: e.asked });
        return value;
      },
      (err: unknown) => {
        e.pending = undefined;
        e.failed = this.now();
        throw err;
      },
    );
    e.pending = pending;
    this.entries.set(key, e);
    return pending;
  }
}
