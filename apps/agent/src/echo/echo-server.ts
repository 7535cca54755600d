import type { Logger } from "@svc/core";
import { type Datagram, type NativeSocketError, RawSocket } from "@svc/native";
import { isLoopback, isMulticast, type LocalAddressSet, localAddresses } from "./local-addresses.ts";
import { SourceRateLimiter, type SourceRateLimiterOptions } from "./rate-limiter.ts";

/** Why a datagram got no reply (the keys of stats().refused). */
export type EchoRefusal =
  | "privileged-source-port"
  | "registered-echo-endpoint"
  | "own-echo-port"
  | "broadcast"
  | "multicast"
  | "rate-limited"
  | "ip-rate-limited";

/** Options of EchoServer. */
export interface EchoServerOptions {
  /** UDP port of both sockets (the agent's grpcPort); 0 picks a free port shared by both families. */
  port: number;
  /** IPv4 and IPv6 bind addresses; defaults 0.0.0.0 and ::. Set null to skip a family. */
  bind4?: string | null;
  bind6?: string | null;
  logger?: Logger;
  /** True when address:port is some registered agent's echo endpoint (prevents echo loops between agents). */
  isRegisteredEchoEndpoint?: (address: string, port: number) => boolean;
  /** This host's addresses; default: the addresses of os.networkInterfaces(), refreshed periodically. */
  ownAddresses?: () => string[];
  /** Source of own and broadcast addresses; default localAddresses() over os.networkInterfaces(). */
  localAddresses?: () => LocalAddressSet;
  /** How often the interface table is re-read, ms. Default 30000. */
  refreshIntervalMs?: number;
  /** budget per source ip:port (spec §8.1; defaults burst 256, 64/s, 4096 sources) */
  rateLimit?: SourceRateLimiterOptions;
  /** budget per source ip on top (defaults PER_IP_BUDGET); its clock defaults to rateLimit's */
  rateLimitPerIp?: SourceRateLimiterOptions;
}

/**
 * Per source address, on top of the per ip:port budget: 4x one port's (burst 1024, 1024 + 256/s), at most 4096
 * addresses tracked. One forged address rotating ports drew 23.7x one port's replies at 2,000 ports, without bound
 * as ports grow; now at most 4x. An agent probes from one port, so its own traffic (a few datagrams a second)
 * never comes near either budget, and up to four such senders behind one NAT address keep the full per-port
 * burst each.
 */
export const PER_IP_BUDGET: Readonly<Required<Omit<SourceRateLimiterOptions, "now">>> = {
  burst: 1024,
  refillPerSecond: 256,
  maxSources: 4096,
};

/** Counters for tests and metrics. */
export interface EchoStats {
  replied: number;
  refused: Partial<Record<EchoRefusal, number>>;
  /** Replies that failed to send (e.g. ENOBUFS). */
  sendErrors: number;
}

/**
 * The agent's UDP echo server (spec §8.3): one IPv4 and one IPv6-only socket on the same port; echoes each
 * datagram's payload unchanged (up to 65535 bytes) from the address the datagram reached, unless a refusal rule
 * matches, the source ip:port is over its token bucket (burst 256, 64/s, 4096 sources), or the source address is
 * over its own (PER_IP_BUDGET: burst 1024, 256/s, 4096 addresses).
 */
export class EchoServer {
  readonly #opts: EchoServerOptions;
  readonly #limiter: SourceRateLimiter;
  readonly #ipLimiter: SourceRateLimiter;
  readonly #sockets: RawSocket[] = [];
  #port = 0;
  #local: LocalAddressSet = { own: new Set(), broadcast: new Set() };
  #timer: NodeJS.Timeout | undefined;
  #replied = 0;
  #sendErrors = 0;
  readonly #refused: Partial<Record<EchoRefusal, number>> = {};

  constructor(opts: EchoServerOptions) {
    this.#opts = opts;
    this.#limiter = new SourceRateLimiter(opts.rateLimit);
    const now = opts.rateLimitPerIp?.now ?? opts.rateLimit?.now;
    this.#ipLimiter = new SourceRateLimiter({
      ...PER_IP_BUDGET,
      ...opts.rateLimitPerIp,
      ...(now ? { now } : {}),
    });
  }

  /** Binds both sockets. Rejects (and leaves nothing open) when a port is taken. */
  async start(): Promise<void> {
    if (this.#sockets.length > 0) return;
    this.#refresh();
    const b4 = this.#opts.bind4 === undefined ? "0.0.0.0" : this.#opts.bind4;
    const b6 = this.#opts.bind6 === undefined ? "::" : this.#opts.bind6;
    const attempts = this.#opts.port === 0 ? 20 : 1;
    for (let i = 0; ; i++) {
      try {
        let port = this.#opts.port;
        if (b4 !== null) {
          const s = this.#open(4, b4, port);
          port = s.localPort();
        }
        if (b6 !== null) {
          const s = this.#open(6, b6, port);
          port = s.localPort();
        }
        this.#port = port;
        break;
      } catch (err) {
        for (const s of this.#sockets.splice(0)) s.close();
        if ((err as NativeSocketError).code !== "EADDRINUSE" || i + 1 >= attempts) throw err;
      }
    }
    const every = this.#opts.refreshIntervalMs ?? 30_000;
    this.#timer = setInterval(() => this.#refresh(), every);
    this.#timer.unref();
    this.#opts.logger?.info({ port: this.#port }, "udp echo server listening");
  }

  /** Closes both sockets; idempotent. */
  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    for (const s of this.#sockets.splice(0)) s.close();
  }

  /** The bound port (after start). */
  get port(): number {
    return this.#port;
  }

  /** Snapshot of the counters. */
  stats(): EchoStats {
    return { replied: this.#replied, refused: { ...this.#refused }, sendErrors: this.#sendErrors };
  }

  /** Re-reads own and broadcast addresses now (also done every refreshIntervalMs). */
  refreshAddresses(): void {
    this.#refresh();
  }

  #refresh(): void {
    try {
      this.#local = (this.#opts.localAddresses ?? localAddresses)();
    } catch (err) {
      this.#opts.logger?.warn({ err: String(err) }, "echo server: reading interfaces failed");
    }
  }

  #open(family: 4 | 6, address: string, port: number): RawSocket {
    const s = RawSocket.open({
      family,
      kind: "udp",
      bind: { address, port },
      v6Only: family === 6,
      pktInfo: true,
    });
    this.#sockets.push(s);
    s.onMessage((d) => this.#handle(s, d));
    return s;
  }

  /** The refusal rule a datagram matches, if any (rate limit excluded). */
  #refusal(d: Datagram): EchoRefusal | undefined {
    const dest = d.localAddress;
    if (dest !== undefined) {
      if (dest === "255.255.255.255" || this.#local.broadcast.has(dest)) return "broadcast";
      if (isMulticast(dest)) return "multicast";
    }
    if (d.port < 1024) return "privileged-source-port";
    if (d.port === this.#port) {
      const own = this.#opts.ownAddresses ? this.#opts.ownAddresses().includes(d.address) : false;
      if (own || isLoopback(d.address) || this.#local.own.has(d.address)) return "own-echo-port";
    }
    if (this.#opts.isRegisteredEchoEndpoint?.(d.address, d.port)) return "registered-echo-endpoint";
    return undefined;
  }

  /** The budget a datagram is over, if any: its ip:port's first, then its address's (only when the first allows). */
  #overBudget(d: Datagram): EchoRefusal | undefined {
    if (!this.#limiter.allow(`${d.address}:${d.port}`)) return "rate-limited";
    if (!this.#ipLimiter.allow(d.address)) return "ip-rate-limited";
    return undefined;
  }

  #handle(s: RawSocket, d: Datagram): void {
    const reason = this.#refusal(d) ?? this.#overBudget(d);
    if (reason) {
      this.#refused[reason] = (this.#refused[reason] ?? 0) + 1;
      return;
    }
    try {
      s.send(d.data, d.address, d.port, d.localAddress ? { sourceAddress: d.localAddress } : undefined);
      this.#replied++;
    } catch (err) {
      this.#sendErrors++;
      this.#opts.logger?.debug({ err: String(err), to: d.address }, "echo reply failed");
    }
  }
}
