/**
 * Test fixture: a real controller (sparse plan, ring degree 2) holding four registrations a, b, c, d (d without
 * plane:pmtu), a fake exporter serving svc_* series with known values, and the real prometheus binary scraping it
 * every second. Plan: a->b,c  b->a,d  c->b,d  d->a,c (unplanned: a->d, b->c, c->a, d->b).
 * Known values: tcp a->b fails every probe; tcp d->a has no series (no data); udp b->d loses 20%; icmp c->d
 * answers in 200 ms; pmtu a->c reduced (1400 of 1500), b->a black hole (1400 crosses), c->b recovering; mtr a->b two hops.
 * The exporter also serves tcp a->d (unplanned: the plan wins).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Controller, RawAgentClient, registerRequest, testConfig } from "@svc/controller";
import { freePort, type ManagedProcess, startPrometheus, stopProcess } from "@svc/lab";
import { type Exporter, histogramLines, peer, startExporter } from "./exposition.ts";

/** The planned pairs. */
export const PLAN: Record<string, string[]> = { a: ["b", "c"], b: ["a", "d"], c: ["b", "d"], d: ["a", "c"] };

const zoneOf = (n: string) => (n < "c" ? "zone-1" : "zone-2");

/** The exposition of scrape `n`. */
export function fixtureMetrics(n: number): string {
  const out: string[] = [];
  const pairs = [
    ...Object.entries(PLAN).flatMap(([s, ds]) => ds.map((d) => [s, d] as const)),
    ["a", "d"] as const,
  ];
  for (const [s, d] of pairs) {
    const l = peer(s, d, zoneOf);
    if (!(s === "d" && d === "a")) {
      if (s === "a" && d === "b") out.push(`svc_tcp_results_total{${l},result="fail"} ${n}`);
      else out.push(`svc_tcp_results_total{${l},result="success"} ${n}`);
      out.push(
        ...histogramLines("svc_tcp_connect_duration_seconds", l, 0.0008, s === "a" && d === "b" ? 0 : n),
      );
    }
    out.push(`svc_udp_results_total{${l},result="success"} ${n}`);
    out.push(`svc_udp_packet_loss_ratio{${l}} ${s === "b" && d === "d" ? 0.2 : 0}`);
    out.push(...histogramLines("svc_udp_rtt_seconds", l, 0.0004, 5 * n));
    out.push(`svc_icmp_results_total{${l},result="success"} ${n}`);
    out.push(`svc_icmp_packet_loss_ratio{${l}} 0`);
    out.push(...histogramLines("svc_icmp_rtt_seconds", l, s === "c" && d === "d" ? 0.2 : 0.0003, 3 * n));
    if (s === "d") continue;
    out.push(`svc_pmtu_probe_bytes{${l}} 1500`);
    if (s === "b" && d === "a") {
      // a black hole as the agent reports it: fail rises, bytes = the largest size the search found to cross
      out.push(`svc_pmtu_bytes{${l}} 1400`);
      out.push(`svc_pmtu_results_total{${l},result="fail"} ${n}`);
      out.push(`svc_pmtu_results_total{${l},result="success"} 0`);
      continue;
    }
    out.push(`svc_pmtu_bytes{${l}} ${s === "a" && d === "c" ? 1400 : 1500}`);
    out.push(`svc_pmtu_results_total{${l},result="success"} ${n}`);
    if (s === "c" && d === "b") out.push(`svc_pmtu_results_total{${l},result="fail"} ${Math.min(n, 3)}`);
  }
  const mtr = 'source_node="a",destination_node="b"';
  out.push(`svc_mtr_hop_rtt_seconds{${mtr},hop_number="1",hop_ip="198.18.0.1"} 0.0005`);
  out.push(`svc_mtr_hop_rtt_seconds{${mtr},hop_number="2",hop_ip="198.18.0.2"} 0.0011`);
  return `${out.join("\n")}\n`;
}

/** A running fixture. */
export interface FleetFixture {
  controller: Controller;
  controllerUrl: string;
  /** host:port of the controller's gRPC listener */
  controllerGrpc: string;
  prometheusUrl: string;
  exporter: Exporter;
  close(): Promise<void>;
}

/** Starts controller, exporter and Prometheus (`binary`). */
export async function startFleetFixture(
  binary = "/usr/bin/prometheus",
  /** the recording rules Prometheus loads (none by default: the console reads raw series) */
  rules?: string,
  /** controller.events.enabled (a console may then subscribe to its event stream) */
  eventsEnabled = false,
): Promise<FleetFixture> {
  const base = testConfig({ agentTtl: 600_000, eventsEnabled });
  const controller = new Controller({
    config: {
      ...base,
      topology: { mode: "sparse", sparse: { ringDegree: 2, zoneChords: 0, autoThreshold: 0 } },
    },
    version: { version: "2.5.0", commit: "test" },
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
  });
  await controller.start();
  const raw = new RawAgentClient(controller.grpcPort);
  for (const n of ["a", "b", "c", "d"]) {
    const planes = ["tcp", "udp", "icmp", ...(n === "d" ? [] : ["pmtu"]), "mtr"].map((p) => `plane:${p}`);
    await raw.register(
      registerRequest({
        node_name: n,
        agent_id: `id-${n}`,
        advertise_address: `198.18.0.${n.charCodeAt(0) - 86}`,
        zone: zoneOf(n),
        capabilities: planes,
        version: "2.5.0",
      }),
    );
  }
  raw.close();
  const exporter = await startExporter(fixtureMetrics);
  const dir = mkdtempSync(join(tmpdir(), "svc-fleet-prom-"));
  let proc: ManagedProcess | undefined;
  try {
    const started = await startPrometheus({
      binary,
      dir,
      port: await freePort(),
      targets: [{ job: "agents", targets: [exporter.target] }],
      intervalSeconds: 1,
      rules: rules === undefined ? [] : [{ name: "svc-rules.yml", yaml: rules }],
    });
    proc = started.process;
    return {
      controller,
      controllerUrl: `http://127.0.0.1:${controller.httpPort}`,
      controllerGrpc: `127.0.0.1:${controller.grpcPort}`,
      prometheusUrl: started.url,
      exporter,
      async close() {
        if (proc) await stopProcess(proc);
        await exporter.close();
        await controller.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await exporter.close();
    await controller.stop();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
