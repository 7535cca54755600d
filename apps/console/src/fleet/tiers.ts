/**
 * Tier rules of the matrix (docs/decisions.md "Fleet tiers"):
 * - tcp/udp/icmp: failing when the latest results all failed (the last two samples of the result counters), or
 *   the packet loss is >= 0.5, or the 5m fail ratio is >= 0.5 unless the latest results all succeeded; degraded
 *   when the fail ratio or the loss is > 0 or the RTT p95 is above 100 ms; healthy otherwise; nodata when nothing
 *   was measured. An outage is red one scrape after it began, and a healed pair leaves red one scrape after.
 * - pmtu: badge from the agent's verdict of the latest run (pmtu-figures.ts). Black hole: the latest verdict
 *   was a black hole (its bytes: the largest size that crosses); Recovering: the latest was not, a black hole was
 *   within 15m; Reduced: crossed below the probed size; Full size: crossed at the probed size. Full size is
 *   healthy, Reduced and Recovering degraded, Black hole failing; a run where not even the small datagram crossed
 *   is no PMTU verdict (nodata; the udp matrix shows it).
 */
import type { FleetProtocol, FleetTier, PmtuBadge } from "@svc/contract";
import type { PairFigures } from "./figure-map.ts";
import { RTT_DEGRADED_SECONDS } from "./promql.ts";

/** At or above this fail ratio / loss a pair is failing. */
export const FAILING_RATIO = 0.5;

/** A pair's verdict for one protocol. */
export interface Verdict {
  tier: FleetTier;
  pmtu?: PmtuBadge;
}

/** The verdict of a measured (or unmeasured: undefined) pair. */
export function verdictOf(protocol: FleetProtocol, f: PairFigures | undefined): Verdict {
  if (!f) return { tier: "nodata" };
  if (protocol === "pmtu") return pmtuVerdict(f);
  const fail = f.failRatio ?? 0;
  const lost = f.lossRatio ?? 0;
  if (f.recent === "fail" || lost >= FAILING_RATIO) return { tier: "failing" };
  if (fail >= FAILING_RATIO && f.recent !== "ok") return { tier: "failing" };
  if (fail > 0 || lost > 0 || (f.rttP95Seconds ?? 0) > RTT_DEGRADED_SECONDS) return { tier: "degraded" };
  return { tier: "healthy" };
}

/**
 * Why a tcp/udp/icmp pair has its tier when the 5-minute figures alone would say otherwise (the pair page shows
 * it): failing on the latest results while the window is still mostly good, or out of failing while the window
 * still holds failures.
 */
export function tierReason(protocol: FleetProtocol, f: PairFigures | undefined): string | undefined {
  if (!f || protocol === "pmtu") return undefined;
  const fail = f.failRatio ?? 0;
  const pct = `${Math.round(fail * 100)}%`;
  if (f.recent === "fail" && fail < FAILING_RATIO && (f.lossRatio ?? 0) < FAILING_RATIO)
    return `The latest probe results all failed (5-minute fail ratio ${pct} so far).`;
  if (f.recent === "ok" && fail >= FAILING_RATIO)
    return `The latest probes succeeded; the last 5 minutes still hold failures (fail ratio ${pct}).`;
  return undefined;
}

function pmtuVerdict(f: PairFigures): Verdict {
  const sizes = (b: PmtuBadge): PmtuBadge => {
    if (f.pmtuBytes !== undefined) b.bytes = f.pmtuBytes;
    if (f.probeBytes !== undefined) b.probeBytes = f.probeBytes;
    return b;
  };
  // the agent's verdict of the latest run decides (spec §2.8: fail = black hole); `bytes` then names the largest
  // size that crosses. Without bytes and without a black hole nothing crossed at all: no PMTU verdict.
  if (f.pmtuLatestFail === true) return { tier: "failing", pmtu: sizes({ badge: "Black hole" }) };
  if (f.pmtuBytes === undefined) return { tier: "nodata" };
  if (f.pmtuFail15m === true) return { tier: "degraded", pmtu: sizes({ badge: "Recovering" }) };
  if (f.probeBytes !== undefined && f.pmtuBytes < f.probeBytes)
    return { tier: "degraded", pmtu: sizes({ badge: "Reduced" }) };
  return { tier: "healthy", pmtu: sizes({ badge: "Full size" }) };
}

/**
 * Severity order for "worst of": failing > degraded > healthy > nodata > notrun > unplanned. A measured healthy
 * protocol outranks one that measured nothing, so a link with tcp healthy and icmp not run reads healthy.
 */
export const TIER_RANK: Readonly<Record<FleetTier, number>> = {
  unplanned: 0,
  notrun: 1,
  nodata: 2,
  healthy: 3,
  degraded: 4,
  failing: 5,
};

/** The worst of `tiers` by TIER_RANK; `fallback` when empty. */
export function worstTier(tiers: Iterable<FleetTier>, fallback: FleetTier = "nodata"): FleetTier {
  let out: FleetTier | undefined;
  for (const t of tiers) if (out === undefined || TIER_RANK[t] > TIER_RANK[out]) out = t;
  return out ?? fallback;
}

/** True for tiers that rest on a measurement. */
export const isScored = (t: FleetTier): boolean => t === "healthy" || t === "degraded" || t === "failing";
