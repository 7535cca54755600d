/**
 * The lab of bench/faults (and of its e2e subset) and its alerting: one alert rule over every pair (a plane failing
 * now, a PMTU black hole, or udp loss above 15 % over 30 s) and a webhook endpoint at a receiver in this process.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { recordingRulesYaml } from "@svc/console/recording-rules";
import type { Lab, LabOptions } from "@svc/lab";
import type { WebhookLog } from "./run.ts";

/** Probe interval (tcp, udp, icmp), pmtu interval and scrape interval of the lab, s. */
export const P = 2;
export const PMTU_P = 5;
export const S = 5;

/** The lab of the bench and of its e2e subset. */
export function labOptions(agents: number, zones: number): LabOptions {
  return {
    agents,
    zones: Array.from({ length: zones }, (_, i) => `zone-${String.fromCharCode(97 + i)}`),
    netns: true,
    scrapeIntervalSeconds: S,
    alertPollInterval: "5s",
    prometheusRules: [{ name: "svc-recording-rules.yml", yaml: recordingRulesYaml("svc", S, 15, false) }],
    config: {
      checkers: {
        tcp: { interval: `${P}s`, timeout: "1s" },
        udp: { interval: `${P}s`, timeout: "500ms" },
        icmp: { interval: `${P}s`, timeout: "1s" },
        pmtu: { interval: `${PMTU_P}s` },
      },
    },
  };
}

/** A deterministic stream in [0, 1) (mulberry32), so a sequence replays from its seed: the engine tests' own. */
export { prng } from "../../packages/localize/src/testdata/fleet-sim.ts";

/** The lab's agents export their pair state (its rules have no `now` group): a plane failing now is ratio 1. */
export const ALERT_EXPR =
  'max by (source_node, destination_node) (svc_peer_problem_ratio{plane=~"tcp|udp|icmp"} >= 1) ' +
  'or max by (source_node, destination_node) (increase(svc_pmtu_results_total{result="fail"}[30s]) > 0) ' +
  "or max by (source_node, destination_node) (avg_over_time(svc_udp_packet_loss_ratio[30s]) > 0.15)";

/** Creates the webhook endpoint and the alert rule through the console; the receiver logs alert.fired arrivals. */
export async function startAlerting(
  lab: Lab,
  cookie: string,
): Promise<{ log: WebhookLog; close(): Promise<void> }> {
  const log: WebhookLog = { fired: [] };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
          event?: string;
          alert?: { labels?: Record<string, string> };
        };
        if (body.event === "alert.fired")
          log.fired.push({ at: Date.now(), labels: body.alert?.labels ?? {} });
      } catch {
        // not ours
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const csrf = /svc_csrf=([^;]+)/.exec(cookie)?.[1] ?? "";
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${lab.consoleUrl}${path}`, {
      method: "POST",
      headers: { cookie, "x-csrf-token": csrf, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
  };
  await post("/api/v1/webhooks", {
    url,
    events: ["alert.fired", "alert.resolved"],
    secret: "bench-faults-signing-secret-0123456789",
  });
  await post("/api/v1/alert-rules", { name: "pair failing", expr: ALERT_EXPR, forSeconds: 0, labels: {} });
  return { log, close: () => new Promise<void>((r) => server.close(() => r())) };
}
