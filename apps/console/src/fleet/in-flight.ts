/**
 * One computation per key at a time, shared by the callers that ask while it runs: a caller arriving while the
 * computation of its key is under way gets that computation's answer (or its error); a caller arriving after it
 * settled starts a new one. Under many viewers of the same page (an incident at 3 a.m.) the controller and
 * Prometheus see one set of reads per key at a time instead of one per viewer.
 *
 * By default nothing is kept once a computation settles, so an answer is never older than the computation in flight
 * when it was asked for. With `keepMs`, a successful answer is also served for `keepMs` after it settled (a failure
 * is never kept): for answers read on every request whose sources change more slowly than that (the controller's
 * inventory; Prometheus's figures, which move once per scrape).
 */
/** Kept answers beyond which the expired ones are swept out. */
const KEPT_SWEEP_AT = 1000;

export class InFlight<V> {
  readonly #running = new Map<string, Promise<V>>();
  readonly #kept = new Map<string, { at: number; value: Promise<V> }>();
  readonly #keepMs: number;
  readonly #now: () => number;

  constructor(opts: { keepMs?: number; now?: () => number } = {}) {
    this.#keepMs = opts.keepMs ?? 0;
    this.#now = opts.now ?? (() => performance.now());
  }

  /** The answer of the computation of `key` under way (or kept), or of `compute()` started now. */
  run(key: string, compute: () => Promise<V>): Promise<V> {
    const running = this.#running.get(key);
    if (running) return running;
    if (this.#keepMs > 0) {
      const kept = this.#kept.get(key);
      if (kept) {
        const age = this.#now() - kept.at;
        if (age >= 0 && age < this.#keepMs) return kept.value;
        this.#kept.delete(key);
      }
    }
    // compute starts on the next microtask, after the entry is set: a compute that throws at once cannot leave
    // its settled run behind as the key's running one
    const started: Promise<V> = Promise.resolve()
      .then(compute)
      .finally(() => {
        if (this.#running.get(key) === started) this.#running.delete(key);
      });
    this.#running.set(key, started);
    if (this.#keepMs > 0)
      started.then(
        () => this.keep(key, started),
        () => {},
      );
    return started;
  }

  private keep(key: string, value: Promise<V>): void {
    const at = this.#now();
    // answers of keys nobody asks for again go once the map grows (e.g. node pages of a large fleet)
    if (this.#kept.size >= KEPT_SWEEP_AT)
      for (const [k, e] of this.#kept) if (at - e.at >= this.#keepMs) this.#kept.delete(k);
    this.#kept.set(key, { at, value });
  }

  /** Computations under way. */
  get size(): number {
    return this.#running.size;
  }
}
