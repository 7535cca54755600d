/**
 * Reads of the same statement batched without serving anything older than the caller: a caller whose read finds
 * none of its key under way starts one; a caller arriving while one runs waits for the next, which starts when the
 * running one settles and serves every caller that arrived meanwhile. So each answer comes from a read started
 * after its caller asked (it sees every write committed before the request, on any replica), while under 50
 * concurrent requests for the same list PostgreSQL runs at most two such reads at a time instead of one per request.
 * Unlike sharing the read under way (fleet/in-flight.ts), which could hand a caller a list read before its own
 * write was committed.
 */
export class ReadBatch<V> {
  readonly #state = new Map<string, { running: Promise<V>; next?: Promise<V> }>();

  /** The answer of a `read()` started after this call (by this caller or with others that asked meanwhile). */
  run(key: string, read: () => Promise<V>): Promise<V> {
    const e = this.#state.get(key);
    if (!e) return this.#start(key, read);
    if (!e.next) {
      const after = () => this.#start(key, read);
      e.next = e.running.then(after, after);
    }
    return e.next;
  }

  #start(key: string, read: () => Promise<V>): Promise<V> {
    // the read starts on the next microtask, after the entry is set (a read that throws at once is its error)
    const entry: { running: Promise<V>; next?: Promise<V> } = { running: Promise.resolve().then(read) };
    this.#state.set(key, entry);
    const settled = () => {
      if (this.#state.get(key) === entry && entry.next === undefined) this.#state.delete(key);
    };
    entry.running.then(settled, settled);
    return entry.running;
  }

  /** Keys with a read under way or waiting. */
  get size(): number {
    return this.#state.size;
  }
}
