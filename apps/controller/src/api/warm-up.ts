/**
 * Whether the controller's registry may still be filling after a start: agents that were registered with the
 * previous process come back within their reconnect time, so for one `controller.agentTtl` after the gRPC
 * listener opened an empty or short topology is not news. It ends early once the node inventory expects agents
 * and all of them are registered (Kubernetes); outside Kubernetes only the TTL ends it.
 */
export class WarmUp {
  readonly #ttlMs: () => number;
  readonly #now: () => number;
  #since: number | undefined;

  constructor(opts: { ttlMs: () => number; now?: () => number }) {
    this.#ttlMs = opts.ttlMs;
    this.#now = opts.now ?? Date.now;
  }

  /** The gRPC listener opened: warm-up starts now. */
  begin(): void {
    this.#since = this.#now();
  }

  /**
   * True while warming up. `expected` is the inventory's count of agents it expects, or undefined when the
   * inventory only knows registered agents (then it cannot tell the fleet is complete).
   */
  active(registered: number, expected: number | undefined): boolean {
    if (this.#since === undefined) return true;
    if (this.#now() - this.#since >= this.#ttlMs()) return false;
    return expected === undefined || expected === 0 || registered < expected;
  }
}
