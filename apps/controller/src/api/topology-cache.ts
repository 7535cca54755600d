/**
 * The serialized topology snapshot, rebuilt only after something it shows changed (an agent registered, left or
 * changed; the node inventory or the probe plan changed). At 5000 agents the body is ~1.7 MiB: building and
 * serializing it per request dominated the route's latency. It is kept as UTF-8 bytes, so a request does not
 * encode 1.7 MiB of string again (garbage the heap would otherwise grow by under load). The snapshot's
 * `timestamp` is the instant it was built; the state it shows has held since.
 */
export class TopologyCache {
  readonly #build: () => object;
  #body: Buffer | undefined;

  constructor(build: () => object) {
    this.#build = build;
  }

  /** Marks the snapshot stale. */
  invalidate(): void {
    this.#body = undefined;
  }

  /** The JSON body of the current snapshot, UTF-8. */
  json(): Buffer {
    this.#body ??= Buffer.from(JSON.stringify(this.#build()));
    return this.#body;
  }
}
