/**
 * A synthetic fleet of N agents for the matrix benchmark: registrations on a real controller, and the exposition
 * a fake exporter serves for the tcp matrix's families, N*(N-1) series per family:
 * - svc_tcp_results_total{result="success"} and {result="fail"} for every pair (as the agent exports both from a
 *   peer's first result), the fail counter rising for 1% of pairs (half of their probes fail); `outage(s, d)`
 *   turns one pair into a total outage from the next scrape on (its success counter stops, its fail counter rises);
 * - svc_tcp_connect_duration_seconds: the le="0.1" and le="+Inf" buckets and _count for every pair (the matrix's
 *   RTT test reads only le="0.1" and _count), every bucket for the 0.2% of pairs made slow (200 ms).
 * Leaving out the other 14 buckets of healthy pairs keeps 500 nodes within this machine's memory; it does not
 * change what the matrix queries select.
 * With `state`, the agents also export what agents of this version do (issue 35): `svc_agent_info` per node, and
 * `svc_peer_problem_ratio{plane="tcp"}` for the pairs in trouble (0.5 for the half-failing ones, 1 while down).
 * With `planned`, only those pairs exist (a sparse plan).
 */
import { Controller, RawAgentClient, registerRequest, testConfig } from "@svc/controller";
import { BUCKETS } from "../../apps/console/src/fleet/testdata/exposition.ts";

/** Node name i of a fleet. */
export const nodeName = (i: number): string => `node-${String(i).padStart(4, "0")}`;

const zoneOf = (i: number) => `zone-${i % 10}`;

/** Starts a controller (full mesh, or sparse: ring degree 2, 2 zone chords) with N registered agents. */
export async function fleetController(n: number, sparse = false): Promise<Controller> {
  const base = testConfig({ agentTtl: 3_600_000 });
  const controller = new Controller({
    config: sparse
      ? { ...base, topology: { mode: "sparse", sparse: { ringDegree: 2, zoneChords: 2, autoThreshold: 0 } } }
      : base,
    version: { version: "2.5.0", commit: "bench" },
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
  });
  await controller.start();
  const raw = new RawAgentClient(controller.grpcPort);
  for (let i = 0; i < n; i++)
    await raw.register(
      registerRequest({
        node_name: nodeName(i),
        agent_id: `agent-${i}`,
        advertise_address: `198.18.${Math.floor(i / 250)}.${(i % 250) + 1}`,
        zone: zoneOf(i),
        capabilities: ["plane:tcp", "plane:udp", "plane:icmp", "plane:pmtu", "plane:mtr"],
        version: "2.5.0",
      }),
    );
  raw.close();
  return controller;
}

/** The fleet's exposition renderer (scrape number -> text) and its series count. */
export function fleetExposition(
  n: number,
  opts: { state?: boolean; planned?: (source: number, destination: number) => boolean } = {},
): {
  render: (scrape: number) => string;
  series: number;
  /** the pair is down from the next scrape on */
  outage: (source: number, destination: number) => void;
  /** the pair is healthy again from the next scrape on */
  heal: (source: number, destination: number) => void;
  /** the pairs in trouble at the start (the half-failing ones: tcp ratio 0.5), as [source, destination, ratio] */
  problems: [number, number, number][];
} {
  const labels: string[] = [];
  const kinds: number[] = []; // 0 healthy, 1 failing, 2 slow
  const problems: [number, number, number][] = [];
  const index = new Map<string, number>();
  let k = 0;
  for (let s = 0; s < n; s++)
    for (let d = 0; d < n; d++) {
      if (s === d || (opts.planned && !opts.planned(s, d))) continue;
      index.set(`${s} ${d}`, labels.length);
      labels.push(
        `source_node="${nodeName(s)}",destination_node="${nodeName(d)}",source_zone="${zoneOf(s)}",destination_zone="${zoneOf(d)}"`,
      );
      kinds.push(k % 100 === 7 ? 1 : k % 500 === 13 ? 2 : 0);
      if (kinds.at(-1) === 1) problems.push([s, d, 0.5]);
      k++;
    }
  let series = opts.state ? n : 0;
  for (const kind of kinds) series += (kind === 2 ? 19 : 5) + (opts.state && kind === 1 ? 1 : 0);
  /** pair index -> scrape number from which it is down */
  const down = new Map<number, number>();
  /** pair index -> scrape number from which it is healthy again (and its success count then) */
  const healed = new Map<number, { from: number; ok: number }>();
  let lastScrape = 0;
  const render = (scrape: number): string => {
    lastScrape = scrape;
    const out: string[] = [];
    const c = scrape * 12;
    if (opts.state)
      for (let s = 0; s < n; s++)
        out.push(`svc_agent_info{source_node="${nodeName(s)}",source_zone="${zoneOf(s)}",version="2.5.0"} 1`);
    for (let i = 0; i < labels.length; i++) {
      const l = labels[i];
      const kind = kinds[i];
      const from = down.get(i);
      const back = healed.get(i);
      if (from !== undefined && (back === undefined || scrape < back.from)) {
        const ok = (from - 1) * 12;
        out.push(`svc_tcp_results_total{${l},result="success"} ${ok}`);
        out.push(`svc_tcp_results_total{${l},result="fail"} ${c - ok}`);
        if (opts.state && scrape >= from) out.push(`svc_peer_problem_ratio{${l},plane="tcp"} 1`);
      } else if (from !== undefined && back !== undefined) {
        const fails = (back.from - from) * 12;
        out.push(`svc_tcp_results_total{${l},result="success"} ${c - fails}`);
        out.push(`svc_tcp_results_total{${l},result="fail"} ${fails}`);
      } else {
        out.push(`svc_tcp_results_total{${l},result="success"} ${kind === 1 ? c / 2 : c}`);
        out.push(`svc_tcp_results_total{${l},result="fail"} ${kind === 1 ? c / 2 : 0}`);
        if (opts.state && kind === 1) out.push(`svc_peer_problem_ratio{${l},plane="tcp"} 0.5`);
      }
      const h = "svc_tcp_connect_duration_seconds";
      if (kind === 2) {
        for (const le of BUCKETS) out.push(`${h}_bucket{${l},le="${le}"} ${le >= 0.2 ? c : 0}`);
      } else out.push(`${h}_bucket{${l},le="0.1"} ${c}`);
      out.push(`${h}_bucket{${l},le="+Inf"} ${c}`, `${h}_count{${l}} ${c}`);
    }
    out.push("");
    return out.join("\n");
  };
  const pair = (source: number, destination: number): number => {
    const i = index.get(`${source} ${destination}`);
    if (i === undefined) throw new Error(`pair ${source} -> ${destination} is not in the fleet`);
    return i;
  };
  const outage = (source: number, destination: number): void => {
    down.set(pair(source, destination), lastScrape + 1);
  };
  const heal = (source: number, destination: number): void => {
    healed.set(pair(source, destination), { from: lastScrape + 1, ok: 0 });
  };
  return { render, series, outage, heal, problems };
}
