import { performance } from "node:perf_hooks";
import { checkPort } from "@svc/protocol";
import type { DnsProber, HttpProber, IcmpProber, TcpProber } from "../scheduler/probers.ts";
import type { AssignedSpec } from "./assigned-spec.ts";

/** The probers external checks use; without icmp, icmp specs fail with `icmp prober unavailable`. */
export interface ExternalProbers {
  tcp: TcpProber;
  dns: DnsProber;
  http: HttpProber;
  icmp?: IcmpProber;
}

/** Outcome of one external check run, as data. Times in ms. */
export interface ExternalOutcome {
  ok: boolean;
  error?: string;
  /** wall time of the check */
  durationMs: number;
  /** icmp echo RTTs, or the tcp connect time */
  rttsMs: number[];
  /** icmp only */
  lossRatio?: number;
}

/** Number of echoes per icmp run: `params.count` when an integer 1-100, else 3. */
export function icmpCount(params: Record<string, unknown>): number {
  const c = params.count;
  return typeof c === "number" && Number.isInteger(c) && c >= 1 && c <= 100 ? c : 3;
}

function bracket(ip: string): string {
  return ip.includes(":") ? `[${ip}]` : ip;
}

/**
 * Runs one check of `spec` against `address` (the admitted IP of a host target; url targets are fetched by URL).
 * - tcp: connect to address:port (port 0 -> 443, checkPort);
 * - icmp: `count` echoes (params.count, default 3);
 * - dns: ask `params.query` of the target as resolver at address:port (port 0 -> 53, checkPort);
 * - http: request the URL; params `method` (GET), `expectStatus` (0 = any 2xx/3xx), `bodyPattern`,
 *   `insecureSkipVerify`.
 * Never throws for network outcomes.
 */
export async function runExternalCheck(
  spec: AssignedSpec,
  address: string,
  timeoutMs: number,
  probers: ExternalProbers,
): Promise<ExternalOutcome> {
  const start = performance.now();
  const done = (o: Omit<ExternalOutcome, "durationMs">): ExternalOutcome => ({
    ...o,
    durationMs: performance.now() - start,
  });
  const p = spec.params;
  switch (spec.checkType) {
    case "tcp": {
      const port = checkPort("tcp", { kind: "external", port: spec.target.port });
      const r = await probers.tcp.probe({ address, port, timeoutMs });
      return done({ ok: r.ok, rttsMs: r.connectMs === undefined ? [] : [r.connectMs], ...err(r.error) });
    }
    case "icmp": {
      if (!probers.icmp) return done({ ok: false, error: "icmp prober unavailable", rttsMs: [] });
      const r = await probers.icmp.probe({ address, timeoutMs, count: icmpCount(p) });
      return done({ ok: r.ok, rttsMs: r.rtts, lossRatio: r.lossRatio, ...err(r.error) });
    }
    case "dns": {
      const port = checkPort("dns", { kind: "external", port: spec.target.port });
      const [r] = await probers.dns.probe({
        hosts: [String(p.query)],
        resolvers: [`${bracket(address)}:${port}`],
        timeoutMs,
      });
      if (!r) return done({ ok: false, error: "no dns result", rttsMs: [] });
      return done({ ok: r.ok, rttsMs: [], ...err(r.error) });
    }
    case "http": {
      const [r] = await probers.http.probe({
        targets: [
          {
            url: spec.target.address,
            method: typeof p.method === "string" && p.method !== "" ? p.method : "GET",
            expectStatus: typeof p.expectStatus === "number" ? p.expectStatus : 0,
            bodyPattern: typeof p.bodyPattern === "string" ? p.bodyPattern : "",
            insecureSkipVerify: p.insecureSkipVerify === true,
          },
        ],
        timeoutMs,
      });
      if (!r) return done({ ok: false, error: "no http result", rttsMs: [] });
      return done({ ok: r.ok, rttsMs: [], ...err(r.error) });
    }
  }
}

function err(error: string | undefined): { error?: string } {
  return error === undefined ? {} : { error };
}
