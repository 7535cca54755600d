/** Options of a SourceRateLimiter (defaults: spec §8.1 echo server). */
export interface SourceRateLimiterOptions {
  /** Bucket size: datagrams a quiet source may send back-to-back. Default 256. */
  burst?: number;
  /** Tokens added per second. Default 64. */
  refillPerSecond?: number;
  /** Sources tracked at most. Default 4096. */
  maxSources?: number;
  /** Monotonic clock in ms; default performance.now. */
  now?: () => number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Token bucket per source key (ip:port). When maxSources sources are tracked and a new one arrives, the least
 * recently seen source is forgotten (a Map kept in recency order). A forgotten source starts again with a full
 * bucket; a flood of spoofed sources can therefore reset honest ones, but memory stays bounded and a source that
 * keeps sending stays tracked, which is the property that matters for stopping amplification by one peer.
 */
export class SourceRateLimiter {
  readonly #burst: number;
  readonly #rate: number;
  readonly #max: number;
  readonly #now: () => number;
  readonly #buckets = new Map<string, Bucket>();

  constructor(opts: SourceRateLimiterOptions = {}) {
    this.#burst = opts.burst ?? 256;
    this.#rate = opts.refillPerSecond ?? 64;
    this.#max = opts.maxSources ?? 4096;
    this.#now = opts.now ?? (() => performance.now());
  }

  /** Takes one token for key; false when the source is over its budget. */
  allow(key: string): boolean {
    const now = this.#now();
    let b = this.#buckets.get(key);
    if (b) {
      this.#buckets.delete(key);
      b.tokens = Math.min(this.#burst, b.tokens + ((now - b.at) / 1000) * this.#rate);
      b.at = now;
    } else {
      if (this.#buckets.size >= this.#max) {
        const oldest = this.#buckets.keys().next();
        if (!oldest.done) this.#buckets.delete(oldest.value);
      }
      b = { tokens: this.#burst, at: now };
    }
    this.#buckets.set(key, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  /** Number of sources currently tracked. */
  get size(): number {
    return this.#buckets.size;
  }
}
