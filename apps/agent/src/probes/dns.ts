import dns from "node:dns";
import { performance } from "node:perf_hooks";
import { describeError, elapsedMs } from "./elapsed.ts";

/** One dns checker run: every host against every resolver. */
export interface DnsProbeTarget {
  hosts: readonly string[];
  /** "ip", "ip:port" or "[v6]:port"; empty = the system resolver (getaddrinfo via dns.lookup) */
  resolvers: readonly string[];
  timeoutMs: number;
}

/** The `resolver` label value used for the system resolver. */
export const SYSTEM_RESOLVER = "system";

/** Outcome of one host x resolver lookup. `ok` = at least one address within the timeout. */
export interface DnsProbeResult {
  host: string;
  /** the configured resolver string, or "system" */
  resolver: string;
  ok: boolean;
  error?: string;
  durationMs: number;
  addresses: string[];
}

function withTimeout<T>(p: Promise<T>, ms: number, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new Error(`timeout after ${ms}ms`));
    }, ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** Absolute form of a name (trailing dot), so an explicit resolver's answer never depends on search domains. */
export function absoluteName(host: string): string {
  return host.endsWith(".") ? host : `${host}.`;
}

async function viaResolver(host: string, server: string, timeoutMs: number): Promise<string[]> {
  const resolver = new dns.promises.Resolver({ timeout: timeoutMs, tries: 1 });
  resolver.setServers([server]);
  const name = absoluteName(host);
  return withTimeout(
    (async () => {
      try {
        return await resolver.resolve4(name);
      } catch (err) {
        // A then AAAA: an IPv6-only name answers NODATA for A; anything else (NXDOMAIN, refused) is final.
        if ((err as NodeJS.ErrnoException).code !== dns.NODATA) throw err;
        return await resolver.resolve6(name);
      }
    })(),
    timeoutMs,
    () => resolver.cancel(),
  );
}

async function viaSystem(host: string, timeoutMs: number): Promise<string[]> {
  // getaddrinfo cannot be cancelled; on timeout its late answer is dropped.
  const found = await withTimeout(dns.promises.lookup(host, { all: true }), timeoutMs, () => {});
  return found.map((a) => a.address);
}

async function probeOne(
  host: string,
  resolver: string | undefined,
  timeoutMs: number,
): Promise<DnsProbeResult> {
  const start = performance.now();
  const label = resolver ?? SYSTEM_RESOLVER;
  try {
    const addresses =
      resolver === undefined
        ? await viaSystem(host, timeoutMs)
        : await viaResolver(host, resolver, timeoutMs);
    const durationMs = elapsedMs(start);
    if (addresses.length === 0)
      return { host, resolver: label, ok: false, error: "no addresses", durationMs, addresses };
    return { host, resolver: label, ok: true, durationMs, addresses };
  } catch (err) {
    return {
      host,
      resolver: label,
      ok: false,
      error: describeError(err),
      durationMs: elapsedMs(start),
      addresses: [],
    };
  }
}

/**
 * Resolves every host with every resolver, concurrently. Explicit resolvers are queried directly (A, then AAAA
 * when the name has no A records) with the name made absolute; with no resolvers configured the system
 * resolver is used (`dns.lookup`, which follows /etc/hosts and nsswitch like any other process).
 * One result per host x resolver; never throws for network outcomes.
 */
export function probeDns(target: DnsProbeTarget): Promise<DnsProbeResult[]> {
  const resolvers: (string | undefined)[] =
    target.resolvers.length === 0 ? [undefined] : [...target.resolvers];
  const runs: Promise<DnsProbeResult>[] = [];
  for (const host of target.hosts) for (const r of resolvers) runs.push(probeOne(host, r, target.timeoutMs));
  return Promise.all(runs);
}
