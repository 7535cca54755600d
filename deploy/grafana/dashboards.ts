/**
 * The Grafana dashboards, built with @grafana/grafana-foundation-sdk: fleet overview, pair and zone drill-down,
 * controller and console health. deploy/grafana/*.json is generated from this file (`npm run gen:dashboards`;
 * test/deploy/grafana-dashboards.test.ts fails when they drift, and runs every panel's PromQL against a real
 * Prometheus). Metric names: the `svc` prefix (metricsPrefix), families as in reference/metrics.md.
 */
import {
  type Dashboard,
  DashboardBuilder,
  type DataSourceRef,
  DatasourceVariableBuilder,
  QueryVariableBuilder,
  RowBuilder,
  VariableRefresh,
  VariableSort,
} from "@grafana/grafana-foundation-sdk/dashboard";
import { DataqueryBuilder } from "@grafana/grafana-foundation-sdk/prometheus";
import { PanelBuilder as StatPanel } from "@grafana/grafana-foundation-sdk/stat";
import { PanelBuilder as TimeseriesPanel } from "@grafana/grafana-foundation-sdk/timeseries";

/** The dashboard's datasource variable (Grafana substitutes `${datasource}`, not JavaScript). */
const DS: DataSourceRef = { type: "prometheus", uid: ["$", "{datasource}"].join("") };
const PROTOCOLS = ["tcp", "udp", "icmp"] as const;

/** One PromQL target. */
function q(expr: string, legend = ""): DataqueryBuilder {
  return new DataqueryBuilder().expr(expr).legendFormat(legend).datasource(DS);
}

function stat(title: string, unit: string, ...targets: DataqueryBuilder[]): StatPanel {
  let p = new StatPanel().title(title).unit(unit).datasource(DS).height(4).span(6);
  for (const t of targets) p = p.withTarget(t);
  return p;
}

function series(title: string, unit: string, ...targets: DataqueryBuilder[]): TimeseriesPanel {
  let p = new TimeseriesPanel().title(title).unit(unit).datasource(DS).height(8).span(12);
  for (const t of targets) p = p.withTarget(t);
  return p;
}

function datasource(): DatasourceVariableBuilder {
  return new DatasourceVariableBuilder("datasource").label("Prometheus").type("prometheus");
}

function labelVariable(name: string, label: string, query: string): QueryVariableBuilder {
  return new QueryVariableBuilder(name)
    .label(label)
    .query(query)
    .datasource(DS)
    .refresh(VariableRefresh.OnTimeRangeChanged)
    .sort(VariableSort.AlphabeticalAsc)
    .multi(true)
    .includeAll(true)
    .allValue(".*");
}

function base(uid: string, title: string, description: string): DashboardBuilder {
  return new DashboardBuilder(title)
    .uid(uid)
    .description(description)
    .tags(["svc", "network"])
    .editable()
    .refresh("30s")
    .time({ from: "now-1h", to: "now" })
    .timezone("browser")
    .withVariable(datasource());
}

/**
 * Share of probes that failed, per protocol (optionally grouped). A group with no fail series yet (an agent creates
 * both result series, an older exporter may not) reads 0, not nothing.
 */
function failRatio(p: string, by = ""): string {
  const g = by ? ` by (${by})` : "";
  const all = `sum${g} (rate(svc_${p}_results_total[$__rate_interval]))`;
  return `(sum${g} (rate(svc_${p}_results_total{result="fail"}[$__rate_interval])) or ${all} * 0) / ${all}`;
}

/** Fleet overview: how many agents report, how many pairs fail, fleet-wide latency and loss. */
export function fleetOverview(): Dashboard {
  const d = base(
    "svc-fleet",
    "svc / Fleet overview",
    "Agents reporting, failing pairs per protocol, fleet-wide probe failure, latency and loss.",
  )
    .withRow(new RowBuilder("Now"))
    .withPanel(
      stat("Agents reporting", "short", q("count(count by (source_node) (svc_tcp_results_total))", "agents")),
    )
    .withPanel(
      stat(
        "Pairs failing tcp (last 5 min)",
        "short",
        q(
          'count((sum by (source_node, destination_node) (increase(svc_tcp_results_total{result="fail"}[5m])) > 0)) or vector(0)',
          "pairs",
        ),
      ),
    )
    .withPanel(
      stat(
        "Pairs losing udp packets",
        "short",
        q(
          "count(max by (source_node, destination_node) (svc_udp_packet_loss_ratio) > 0) or vector(0)",
          "pairs",
        ),
      ),
    )
    .withPanel(
      stat(
        "Path MTU below the probe size",
        "short",
        q("count((svc_pmtu_bytes < svc_pmtu_probe_bytes)) or vector(0)", "pairs"),
      ),
    )
    .withRow(new RowBuilder("Fleet-wide"))
    .withPanel(series("Probe failure ratio", "percentunit", ...PROTOCOLS.map((p) => q(failRatio(p), p))))
    .withPanel(
      series(
        "Latency p50 / p95",
        "s",
        q(
          "histogram_quantile(0.5, sum by (le) (rate(svc_tcp_connect_duration_seconds_bucket[$__rate_interval])))",
          "tcp connect p50",
        ),
        q(
          "histogram_quantile(0.95, sum by (le) (rate(svc_tcp_connect_duration_seconds_bucket[$__rate_interval])))",
          "tcp connect p95",
        ),
        q(
          "histogram_quantile(0.95, sum by (le) (rate(svc_udp_rtt_seconds_bucket[$__rate_interval])))",
          "udp rtt p95",
        ),
        q(
          "histogram_quantile(0.95, sum by (le) (rate(svc_icmp_rtt_seconds_bucket[$__rate_interval])))",
          "icmp rtt p95",
        ),
      ),
    )
    .withPanel(
      series(
        "Worst pairs: udp loss",
        "percentunit",
        q(
          "topk(10, max by (source_node, destination_node) (svc_udp_packet_loss_ratio))",
          "{{source_node}} → {{destination_node}}",
        ),
      ),
    )
    .withPanel(
      series(
        "Worst pairs: tcp failure ratio",
        "percentunit",
        q(
          `topk(10, ${failRatio("tcp", "source_node, destination_node")})`,
          "{{source_node}} → {{destination_node}}",
        ),
      ),
    );
  return d.build();
}

const PAIR = 'source_node=~"$source", destination_node=~"$destination"';

/** Pair and zone drill-down: one pair's probes per protocol, and failure between zones. */
export function pairDrilldown(): Dashboard {
  return base(
    "svc-pairs",
    "svc / Pairs and zones",
    "One pair (or a set) per protocol: results, latency, loss, path MTU, hops; failure between zones.",
  )
    .withVariable(labelVariable("source", "Source node", "label_values(svc_tcp_results_total, source_node)"))
    .withVariable(
      labelVariable(
        "destination",
        "Destination node",
        "label_values(svc_tcp_results_total, destination_node)",
      ),
    )
    .withRow(new RowBuilder("Pair"))
    .withPanel(
      series(
        "Probes per second by result",
        "ops",
        ...PROTOCOLS.map((p) =>
          q(`sum by (result) (rate(svc_${p}_results_total{${PAIR}}[$__rate_interval]))`, `${p} {{result}}`),
        ),
      ),
    )
    .withPanel(
      series(
        "Latency p95",
        "s",
        q(
          `histogram_quantile(0.95, sum by (le, source_node, destination_node) (rate(svc_tcp_connect_duration_seconds_bucket{${PAIR}}[$__rate_interval])))`,
          "tcp {{source_node}} → {{destination_node}}",
        ),
        q(
          `histogram_quantile(0.95, sum by (le, source_node, destination_node) (rate(svc_udp_rtt_seconds_bucket{${PAIR}}[$__rate_interval])))`,
          "udp {{source_node}} → {{destination_node}}",
        ),
        q(
          `histogram_quantile(0.95, sum by (le, source_node, destination_node) (rate(svc_icmp_rtt_seconds_bucket{${PAIR}}[$__rate_interval])))`,
          "icmp {{source_node}} → {{destination_node}}",
        ),
      ),
    )
    .withPanel(
      series(
        "Packet loss",
        "percentunit",
        q(`svc_udp_packet_loss_ratio{${PAIR}}`, "udp {{source_node}} → {{destination_node}}"),
        q(`svc_icmp_packet_loss_ratio{${PAIR}}`, "icmp {{source_node}} → {{destination_node}}"),
      ),
    )
    .withPanel(
      series(
        "Path MTU",
        "bytes",
        q(`svc_pmtu_bytes{${PAIR}}`, "{{source_node}} → {{destination_node}}"),
        q(`max(svc_pmtu_probe_bytes{${PAIR}})`, "probe size"),
      ),
    )
    .withPanel(
      series(
        "MTR hop latency",
        "s",
        q(
          `svc_mtr_hop_rtt_seconds{${PAIR}}`,
          "{{source_node}} → {{destination_node}} hop {{hop_number}} {{hop_ip}}",
        ),
      ),
    )
    .withRow(new RowBuilder("Zones"))
    .withPanel(
      series(
        "tcp failure ratio between zones",
        "percentunit",
        q(failRatio("tcp", "source_zone, destination_zone"), "{{source_zone}} → {{destination_zone}}"),
      ),
    )
    .withPanel(
      series(
        "udp loss between zones (worst pair)",
        "percentunit",
        q(
          "max by (source_zone, destination_zone) (svc_udp_packet_loss_ratio)",
          "{{source_zone}} → {{destination_zone}}",
        ),
      ),
    )
    .build();
}

/** Controller and console health. */
export function health(): Dashboard {
  return base(
    "svc-health",
    "svc / Controller and console health",
    "The controller's registry, leadership and streams; the console's store, sockets and sign-ins.",
  )
    .withRow(new RowBuilder("Controller"))
    .withPanel(stat("Leaders", "short", q("sum(svc_controller_leader)", "leaders")))
    .withPanel(
      stat(
        "Agents registered / expected",
        "short",
        q("max(svc_controller_registered_agents)", "registered"),
      ).withTarget(q("max(svc_controller_expected_agents)", "expected")),
    )
    .withPanel(stat("Agent streams open", "short", q("sum(svc_controller_grpc_connections)", "streams")))
    .withPanel(stat("Event subscribers", "short", q("sum(svc_controller_event_subscribers)", "subscribers")))
    .withPanel(
      series(
        "Peer lists sent to agents",
        "ops",
        q("sum(rate(svc_controller_peer_updates_total[$__rate_interval]))", "peer lists/s"),
      ),
    )
    .withPanel(
      series(
        "Diagnostics by type and result",
        "ops",
        q(
          "sum by (type, result) (rate(svc_controller_diagnostics_total[$__rate_interval])) or vector(0)",
          "{{type}} {{result}}",
        ),
      ),
    )
    .withRow(new RowBuilder("Console"))
    .withPanel(stat("Store ready (replicas)", "short", q("sum(svc_console_store_ready)", "ready")))
    .withPanel(
      series(
        "WebSocket connections refused by a cap",
        "ops",
        q("sum by (limit) (rate(svc_console_ws_refused_total[$__rate_interval])) or vector(0)", "{{limit}}"),
      ),
    )
    .withPanel(
      series(
        "Sign-ins by mode and result",
        "ops",
        q(
          "sum by (mode, result) (rate(svc_console_sign_ins_total[$__rate_interval])) or vector(0)",
          "{{mode}} {{result}}",
        ),
      ),
    )
    .withPanel(
      series(
        "External-check specs left out of a fan-out",
        "ops",
        q("sum by (reason) (rate(svc_console_external_specs_skipped_total[$__rate_interval]))", "{{reason}}"),
      ),
    )
    .build();
}

/** Every dashboard with the file it is written to (deploy/grafana/<file>). */
export function dashboards(): { file: string; dashboard: Dashboard }[] {
  return [
    { file: "svc-fleet.json", dashboard: fleetOverview() },
    { file: "svc-pairs.json", dashboard: pairDrilldown() },
    { file: "svc-health.json", dashboard: health() },
  ];
}

/** The JSON text of a dashboard as committed (two-space indentation, trailing newline). */
export function dashboardJson(d: Dashboard): string {
  return `${JSON.stringify(d, null, 2)}\n`;
}
