import dns from "node:dns";
import type { ExternalChecker } from "@svc/core";
import { type Cidr, cidrContains, isIpLiteral, parseCidr } from "@svc/core";

/** Resolves a host name to its addresses (dns.promises.lookup with all: true by default). */
export type HostLookup = (host: string) => Promise<string[]>;

/** Default lookup: the system resolver, every address. */
export const systemLookup: HostLookup = async (host) =>
  (await dns.promises.lookup(host, { all: true })).map((a) => a.address);

/** Why an external check did not run: the `reason` label of external_denied_total. */
export type DenyReason = "disabled" | "resolve" | "cidr";

export type PolicyDecision =
  | { ok: true; address: string }
  | { ok: false; reason: DenyReason; detail: string };

/**
 * The agent-side gate of continuous external checks (`checkers.external`): disabled -> `disabled`; a host name is
 * resolved first (failure or no address -> `resolve`); then EVERY resolved address must lie inside an allowed
 * CIDR and outside every denied CIDR, else `cidr`. Checking all addresses (not just the first) means the probe,
 * or an http client resolving the name again, cannot land outside the allowlist. On success `address` is the
 * first resolved address, which tcp, icmp and dns probe directly.
 */
export class TargetPolicy {
  readonly #enabled: boolean;
  readonly #allowed: Cidr[];
  readonly #denied: Cidr[];
  readonly #lookup: HostLookup;
  readonly #lookupTimeoutMs: number;

  constructor(cfg: ExternalChecker, lookup: HostLookup = systemLookup, lookupTimeoutMs = 5000) {
    this.#enabled = cfg.enabled;
    this.#allowed = cfg.allowedCidrs.map(parseCidr).filter((c): c is Cidr => c !== undefined);
    this.#denied = cfg.deniedCidrs.map(parseCidr).filter((c): c is Cidr => c !== undefined);
    this.#lookup = lookup;
    this.#lookupTimeoutMs = lookupTimeoutMs;
  }

  get enabled(): boolean {
    return this.#enabled;
  }

  /** Decides whether `host` may be checked; never throws. */
  async admit(host: string | undefined): Promise<PolicyDecision> {
    if (!this.#enabled)
      return { ok: false, reason: "disabled", detail: "checkers.external.enabled is false" };
    if (host === undefined || host === "")
      return { ok: false, reason: "resolve", detail: "no host in target" };
    let addresses: string[];
    if (isIpLiteral(host)) addresses = [host];
    else {
      try {
        addresses = await withTimeout(this.#lookup(host), Math.max(1, this.#lookupTimeoutMs));
      } catch (err) {
        return { ok: false, reason: "resolve", detail: `resolve ${host}: ${(err as Error).message}` };
      }
    }
    const first = addresses[0];
    if (first === undefined) return { ok: false, reason: "resolve", detail: `resolve ${host}: no addresses` };
    for (const a of addresses) {
      const allowed = this.#allowed.some((c) => cidrContains(c, a));
      const denied = this.#denied.some((c) => cidrContains(c, a));
      if (!allowed || denied) {
        return {
          ok: false,
          reason: "cidr",
          detail: `${a} is ${denied ? "inside deniedCidrs" : "outside allowedCidrs"}`,
        };
      }
    }
    return { ok: true, address: first };
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timeout after ${ms}ms`)), ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}
