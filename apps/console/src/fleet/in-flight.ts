/**
 * One computation per key at a time, shared by the callers that ask while it runs: a caller arriving while the
 * computation of its key is under way gets that computation's answer (or its error); a caller arriving after it
 * settled starts a new one. Nothing is kept once a computation settles, so an answer is never older than the
 * computation in flight when it was asked for. Under many viewers of the same page (an incident at 3 a.m.) the
 * controller and Prometheus see one set of reads per key at a time instead of one per viewer.
 */
export class InFlight<V> {
  readonly #running = new Map<string, Promise<V>>();

  /** The answer of the computation of `key` under way, or of `compute()` started now. */
  run(key: string, compute: () => Promise<V>): Promise<V> {
    const running = this.#running.get(key);
    if (running) return running;
    // compute starts on the next microtask, after the entry is set: a compute that throws at once cannot leave
    // its settled run behind as the key's running one
    const started: Promise<V> = Promise.resolve()
      .then(compute)
      .finally(() => {
        if (this.#running.get(key) === started) this.#running.delete(key);
      });
    this.#running.set(key, started);
    return started;
  }

  /** Computations under way. */
  get size(): number {
    return this.#running.size;
  }
}
