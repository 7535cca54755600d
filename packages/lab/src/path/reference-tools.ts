/** Parsers for the reference tools the lab judges our probes against: iputils ping, tracepath, mtr --report. */

/** What iputils `ping` reported. */
export interface PingReport {
  transmitted: number;
  received: number;
  /** 0-1, from the counts (not ping's rounded percentage) */
  lossRatio: number;
  /** round-trip times of the replies, in milliseconds, in arrival order */
  rttsMs: number[];
}

/** Parses `ping` output (with or without -q; without -q the per-reply times are listed). */
export function parsePing(stdout: string): PingReport {
  const rttsMs = [...stdout.matchAll(/icmp_seq=\d+ .*time=([\d.]+) ms/g)].map((m) => Number(m[1]));
  const sum = /(\d+) packets transmitted, (\d+) (?:packets )?received/.exec(stdout);
  if (!sum) throw new Error(`no ping statistics in: ${stdout.slice(-300)}`);
  const transmitted = Number(sum[1]);
  const received = Number(sum[2]);
  return { transmitted, received, lossRatio: transmitted ? 1 - received / transmitted : 0, rttsMs };
}

/** One hop as a trace tool saw it; `ip` is "" for a hop that never answered. */
export interface TraceHop {
  number: number;
  ip: string;
}

/** What `tracepath -n` reported. */
export interface TracepathReport {
  hops: TraceHop[];
  /** the Resume line's pmtu */
  pmtu: number | undefined;
  reached: boolean;
}

/** Parses `tracepath -n`: per hop number the last line with an address wins ("no reply" = silent hop). */
export function parseTracepath(stdout: string): TracepathReport {
  const byNumber = new Map<number, string>();
  let reached = false;
  for (const line of stdout.split("\n")) {
    const m = /^\s*(\d+)\??:\s+(\S+)(?:\s+(no reply))?/.exec(line);
    if (!m || m[2] === "[LOCALHOST]") continue;
    const n = Number(m[1]);
    const ip = m[2] === "no" ? "" : (m[2] ?? "");
    if (ip !== "" || !byNumber.has(n)) byNumber.set(n, ip);
    if (/\breached\b/.test(line)) reached = true;
  }
  const pmtu = /(?:Resume|Too many hops): pmtu (\d+)/.exec(stdout);
  const hops = [...byNumber].sort((a, b) => a[0] - b[0]).map(([number, ip]) => ({ number, ip }));
  return { hops, pmtu: pmtu ? Number(pmtu[1]) : undefined, reached };
}

/** One hop of `mtr --report`. */
export interface MtrHop extends TraceHop {
  lossRatio: number;
  sent: number;
  avgMs: number;
}

/** Parses `mtr --report -n` (silent hops "???" get ip ""). */
export function parseMtrReport(stdout: string): MtrHop[] {
  const hops: MtrHop[] = [];
  const re = /^\s*(\d+)\.\|--\s+(\S+)\s+([\d.]+)%?\s+(\d+)\s+[\d.]+\s+([\d.]+)/gm;
  for (const m of stdout.matchAll(re)) {
    hops.push({
      number: Number(m[1]),
      ip: m[2] === "???" ? "" : (m[2] ?? ""),
      lossRatio: Number(m[3]) / 100,
      sent: Number(m[4]),
      avgMs: Number(m[5]),
    });
  }
  return hops;
}

/** Median of a non-empty list (NaN for an empty one). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}
