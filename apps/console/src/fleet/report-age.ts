/**
 * When a node's own report is too old to count (the localization's "does it still report?"). Prometheus ends a
 * series with a staleness marker one failed scrape after its agent stops; a store without markers on instant
 * queries (VictoriaMetrics answers from up to 5 minutes back) keeps the last sample. So a node's newest sample
 * counts only while it is younger than STALE_INTERVALS report intervals of the fleet, the interval read from the
 * stores' own samples of `<prefix>_agent_info` (one series per agent, scraped with its results): REPORT_WINDOW_S
 * over the median number of samples per agent in that window. The window is short so that a fleet started a minute
 * ago reads its interval right, and long enough that an interval up to it is read as at least itself (one sample:
 * the window), so a live node is never stale between two scrapes. Agents that export no agent_info (spec §9, older
 * agents) give no interval, and the store's own staleness is all there is.
 */
export const REPORT_WINDOW_S = 120;
/** Report intervals a node's newest sample may be old and still count. */
export const STALE_INTERVALS = 3;
/** Never stale sooner than this (s): a scrape that takes long is not a node down. */
export const STALE_MIN_S = 10;

/** The fleet's report interval in seconds (median over its agents), from the metrics store. */
export const reportIntervalQuery = (prefix: string) =>
  `${REPORT_WINDOW_S} / quantile(0.5, count_over_time(${prefix}_agent_info[${REPORT_WINDOW_S}s]))`;

/** Seconds after which a node's newest sample no longer counts as a report, given the fleet's interval. */
export function reportStaleAfter(interval: number | undefined): number {
  if (interval === undefined || !Number.isFinite(interval) || interval <= 0) return Number.POSITIVE_INFINITY;
  return Math.max(STALE_MIN_S, STALE_INTERVALS * interval);
}
