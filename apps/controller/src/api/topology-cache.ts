/**
 * The serialized topology snapshot, rebuilt only after something it shows changed (an agent registered, left or
 * changed; the node inventory or the probe plan changed). At 5000 agents the body is ~1.7 MiB: building and
 * serializing it per request dominated the route's latency. The snapshot's `timestamp` is the instant it was
 * built; the state it shows has held since.
 */
export class TopologyCache {
  readonly #build: () => object;
  #body: string | undefined;

  constructor(build: () => object) {
    this.#build = build;
  }

  /** Marks the snapshot stale. */
  invalidate(): void {
    this.#body = undefined;
  }

  /** The JSON body of the current snapshot. */
  json(): string {
    this.#body ??= JSON.stringify(this.#build());
    return this.#body;
  }
}
