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
 */
import { Controller, RawAgentClient, registerRequest, testConfig } from "@svc/controller";
import { BUCKETS } from "../../apps/console/src/fleet/testdata/exposition.ts";

/** Node name i of a fleet. */
export const nodeName = (i: number): string => `node-${String(i).padStart(4, "0")}`;

const zoneOf = (i: number) => `zone-${i % 10}`;

/** Starts a controller (full mesh) with N registered agents. */
export async function fleetController(n: number): Promise<Controller> {
  const controller = new Controller({
    config: testConfig({ agentTtl: 3_600_000 }),
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
export function fleetExposition(n: number): {
  render: (scrape: number) => string;
  series: number;
  outage: (source: number, destination: number) => void;
} {
  const labels: string[] = [];
  const kinds: number[] = []; // 0 healthy, 1 failing, 2 slow
  let k = 0;
  for (let s = 0; s < n; s++)
    for (let d = 0; d < n; d++) {
      if (s === d) continue;
      labels.push(
        `source_node="${nodeName(s)}",destination_node="${nodeName(d)}",source_zone="${zoneOf(s)}",destination_zone="${zoneOf(d)}"`,
      );
      kinds.push(k % 100 === 7 ? 1 : k % 500 === 13 ? 2 : 0);
      k++;
    }
  let series = 0;
  for (const kind of kinds) series += kind === 2 ? 19 : 5;
  /** pair index -> scrape number from which it is down */
  const down = new Map<number, number>();
  let lastScrape = 0;
  const render = (scrape: number): string => {
    lastScrape = scrape;
    const out: string[] = [];
    const c = scrape * 12;
    for (let i = 0; i < labels.length; i++) {
      const l = labels[i];
      const kind = kinds[i];
      const from = down.get(i);
      if (from !== undefined) {
        const ok = (from - 1) * 12;
        out.push(`svc_tcp_results_total{${l},result="success"} ${ok}`);
        out.push(`svc_tcp_results_total{${l},result="fail"} ${c - ok}`);
      } else {
        out.push(`svc_tcp_results_total{${l},result="success"} ${kind === 1 ? c / 2 : c}`);
        out.push(`svc_tcp_results_total{${l},result="fail"} ${kind === 1 ? c / 2 : 0}`);
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
  const outage = (source: number, destination: number): void => {
    const index = source * (n - 1) + (destination < source ? destination : destination - 1);
    down.set(index, lastScrape + 1);
  };
  return { render, series, outage };
}
