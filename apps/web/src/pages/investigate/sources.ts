/**
 * The timeline's sources (spec §4.5, "Timeline source bounds"), each gated on its permission and, where it reads
 * stored records, on the database. Every source that is absent, bounded or failed adds one disclosure line; when
 * GET /api/v1/config could not be read, one line says no stored source was requested (and none is).
 */
import * as c from "@svc/contract";
import { type ApiClient, ApiError } from "../../api/client.tsx";
import { auditTimeline } from "./audit-rows.ts";
import { crossingQueries, rangeOf } from "./crossing-queries.ts";
import { crossings } from "./crossings.ts";
import { type Investigation, pairEnds } from "./params.ts";
import type { TimelineEntry, TimelineSeverity } from "./timeline.ts";

/** Most fleet events and k8s events read per source. */
export const EVENTS_PER_SOURCE = 200;
/** Runs scanned (the most recent). */
export const RUNS_SCANNED = 20;
/** Peers of a node whose path history is read. */
export const PATH_PEERS_MAX = 20;

export interface Gathered {
  rows: TimelineEntry[];
  disclosures: string[];
}

interface Env {
  api: ApiClient;
  permissions: ReadonlySet<string>;
  /** null when GET /api/v1/config could not be read */
  config: c.ConsoleConfigView | null;
  /** the target's name, for target scope (its metrics' label) */
  targetName?: string;
}

interface Source {
  name: string;
  permission: string;
  /** reads stored records: needs the database (and a readable configuration) */
  stored: boolean;
  prometheus?: boolean;
  read(i: Investigation, env: Env, disclose: (line: string) => void): Promise<TimelineEntry[]>;
}

const hops = (n: number) => `${n} hop${n === 1 ? "" : "s"}`;
const sev = (s: string): TimelineSeverity => (s === "error" ? "error" : s === "warn" ? "warn" : "info");
const inWindow = (at: string, i: Investigation) => {
  const t = Date.parse(at);
  return t >= Date.parse(i.from) && t <= Date.parse(i.to);
};

/** True when a pair `a->b` (or a node) belongs to the scope (zone pairs and the cluster take everything). */
export function touches(i: Investigation, source: string, destination?: string): boolean {
  if (i.kind === "pair") {
    const [a, b] = pairEnds(i.scope) ?? ["", ""];
    return destination === undefined ? source === a || source === b : source === a && destination === b;
  }
  if (i.kind === "node") return source === i.scope || destination === i.scope;
  if (i.kind === "target") return false;
  return true;
}

/** A stored event scope (`node` or `a->b`) in the investigation's scope. */
function eventInScope(i: Investigation, scope: string): boolean {
  const ends = pairEnds(scope);
  return ends ? touches(i, ends[0], ends[1]) : scope === "" || touches(i, scope);
}

const fleetEvents: Source = {
  name: "Fleet events",
  permission: "events:read",
  stored: true,
  async read(i, env, disclose) {
    const rows: TimelineEntry[] = [];
    let before: string | undefined;
    let scanned = 0;
    const scope = i.kind === "pair" || i.kind === "node" ? i.scope : undefined;
    for (;;) {
      const page = await env.api.call(c.listEvents, {
        query: { until: i.to, ...(scope ? { scope } : {}), ...(before ? { before } : {}) },
      });
      for (const e of page.events) {
        scanned++;
        if (!inWindow(e.at, i) || !eventInScope(i, e.scope)) continue;
        rows.push({
          timestamp: e.at,
          kind: "fleet-event",
          severity: sev(e.severity),
          title: e.summary,
          detail: `${e.type} · ${e.scope}`,
          reference: `event:${e.id}`,
        });
        if (rows.length >= EVENTS_PER_SOURCE) break;
      }
      const oldest = page.events.at(-1);
      if (rows.length >= EVENTS_PER_SOURCE) {
        disclose(`Fleet events: only the newest ${EVENTS_PER_SOURCE} in the window are shown.`);
        break;
      }
      if (!page.nextCursor || !oldest || Date.parse(oldest.at) < Date.parse(i.from)) break;
      if (scanned >= EVENTS_PER_SOURCE * 5) {
        disclose(
          `Fleet events: stopped after scanning ${scanned} events; older ones in the window are not shown.`,
        );
        break;
      }
      before = page.nextCursor;
    }
    return rows;
  },
};

const k8sEvents: Source = {
  name: "Cluster events",
  permission: "events:read",
  stored: true,
  async read(i, env, disclose) {
    const nodes =
      i.kind === "node"
        ? [i.scope]
        : i.kind === "pair"
          ? (pairEnds(i.scope) ?? [])
          : i.kind === "target"
            ? null
            : [];
    if (nodes === null) {
      disclose("Cluster events: not read for a target (they concern nodes and pods).");
      return [];
    }
    const asks = nodes.length === 0 ? [undefined] : nodes;
    const seen = new Map<string, TimelineEntry>();
    for (const node of asks) {
      const r = await env.api.call(c.listK8sEvents, {
        query: { from: i.from, to: i.to, ...(node ? { node } : {}) },
      });
      if (!r.enabled) {
        disclose("Cluster events: not captured (console.kubernetesContext.enabled is off).");
        return [];
      }
      if (r.truncated)
        disclose(`Cluster events: the window held more than ${c.K8S_EVENTS_MAX}; the newest are shown.`);
      for (const e of r.events)
        seen.set(e.id, {
          timestamp: e.at,
          kind: "k8s-event",
          severity: e.type === "Warning" ? "warn" : "info",
          title: `${e.reason}: ${e.object}`,
          detail: `${e.message}${e.count > 1 ? ` (×${e.count})` : ""} · ${e.namespace}`,
          reference: `k8s-event:${e.id}`,
        });
    }
    return [...seen.values()];
  },
};

const audit: Source = {
  name: "Audit",
  permission: "audit:read",
  stored: true,
  async read(i, env, disclose) {
    const r = await env.api.call(c.listAudit);
    const oldest = r.rows.at(-1);
    if (r.rows.length >= c.AUDIT_PAGE && oldest && Date.parse(oldest.at) > Date.parse(i.from))
      disclose(
        `Audit: only the newest ${c.AUDIT_PAGE} rows are read; older rows in the window are not shown.`,
      );
    return auditTimeline(r.rows, Date.parse(i.from), Date.parse(i.to));
  },
};

const annotations: Source = {
  name: "Annotations",
  permission: "annotations:read",
  stored: true,
  async read(i, env) {
    const scope = i.kind === "pair" || i.kind === "node" ? i.scope : undefined;
    const r = await env.api.call(c.listAnnotations, {
      query: { from: i.from, to: i.to, ...(scope ? { scope } : {}) },
    });
    return r.annotations
      .filter((a) => eventInScope(i, a.scope))
      .map((a) => ({
        timestamp: Date.parse(a.at) < Date.parse(i.from) ? i.from : a.at,
        kind: "annotation" as const,
        severity: "info" as const,
        title: a.text.split("\n", 1)[0] ?? "",
        detail: `${a.endAt ? `span until ${a.endAt}` : "note"} · by ${a.author}${a.scope ? ` · ${a.scope}` : ""}`,
        reference: `annotation:${a.id}`,
      }));
  },
};

/** True when a maintenance window covers the investigation's scope. */
function windowCovers(i: Investigation, w: c.MaintenanceWindow): boolean {
  if (w.scope === "fleet") return true;
  if (w.scope === "target") return i.kind === "target" || i.kind === "cluster";
  if (w.scope === "node") return i.kind === "zone-pair" || i.kind === "cluster" || touches(i, w.node);
  return i.kind === "zone-pair" || i.kind === "cluster" || touches(i, w.source, w.destination);
}

const maintenance: Source = {
  name: "Maintenance windows",
  permission: "maintenance:read",
  stored: true,
  async read(i, env) {
    const r = await env.api.call(c.listMaintenanceWindows);
    return r.windows
      .filter((w) => Date.parse(w.startAt) <= Date.parse(i.to) && Date.parse(w.endAt) >= Date.parse(i.from))
      .filter(
        (w) =>
          windowCovers(i, w) && (i.kind !== "target" || w.scope !== "target" || w.target === env.targetName),
      )
      .map((w) => ({
        timestamp: w.startAt,
        kind: "maintenance-window" as const,
        severity: "info" as const,
        title: `Maintenance (${w.scope}${w.scope === "node" ? ` ${w.node}` : w.scope === "pair" ? ` ${w.source}->${w.destination}` : w.scope === "target" ? ` ${w.target}` : ""})`,
        detail: `until ${w.endAt}${w.reason ? ` · ${w.reason}` : ""} · by ${w.author}`,
        reference: `maintenance:${w.id}`,
      }));
  },
};

const runs: Source = {
  name: "Diagnostic runs",
  permission: "runs:read",
  stored: true,
  async read(i, env, disclose) {
    const r = await env.api.call(c.listRuns, { query: { limit: RUNS_SCANNED } });
    disclose(`Diagnostic runs: only the ${RUNS_SCANNED} most recent runs are scanned.`);
    return (
      r.runs
        .filter((run) => inWindow(run.createdAt, i))
        // a schedule's round to a target belongs to that target's investigation (its pairs name no node pair); the
        // form asks for the target's id, the metrics queries read its name (the series' `target` label): either
        .filter(
          (run) =>
            (i.kind === "target" && (run.target?.id === i.scope || run.target?.name === i.scope)) ||
            run.pairs.some((p) => touches(i, p.source, p.destination)),
        )
        .map((run) => ({
          timestamp: run.createdAt,
          kind: "diagnostic-run" as const,
          severity:
            run.status === "failed"
              ? ("error" as const)
              : run.status === "partial"
                ? ("warn" as const)
                : ("info" as const),
          title: `${run.spec.type} run ${run.status}`,
          detail: `${run.pairs.length} pair${run.pairs.length === 1 ? "" : "s"} · by ${run.createdBy}${run.error ? ` · ${run.error}` : ""}`,
          reference: `/runs/${run.id}`,
        }))
    );
  },
};

const pathChanges: Source = {
  name: "MTR path changes",
  permission: "mtr:read",
  stored: true,
  async read(i, env, disclose) {
    let pairs: [string, string][];
    if (i.kind === "pair") pairs = [pairEnds(i.scope) ?? ["", ""]];
    else if (i.kind === "node") {
      const node = await env.api.call(c.getNode, { params: { name: i.scope }, query: {} });
      const peers = [...new Set([...node.to, ...node.from].map((p) => p.peer))].sort();
      if (peers.length > PATH_PEERS_MAX)
        disclose(`MTR path changes: read for the first ${PATH_PEERS_MAX} of ${peers.length} peers only.`);
      pairs = peers.slice(0, PATH_PEERS_MAX).flatMap((p): [string, string][] => [
        [i.scope, p],
        [p, i.scope],
      ]);
    } else {
      disclose(
        i.kind === "target"
          ? "MTR path changes: path history is kept per node pair, not for targets."
          : "MTR path changes: need a pair, node or target scope.",
      );
      return [];
    }
    const rows: TimelineEntry[] = [];
    for (const [source, destination] of pairs) {
      const r = await env.api.call(c.listMtrSnapshots, { query: { source, destination } });
      // newest first; the oldest path known is where the history starts, not a change
      r.snapshots.slice(0, -1).forEach((s, k) => {
        if (!inWindow(s.firstAt, i)) return;
        const prev = r.snapshots[k + 1];
        rows.push({
          timestamp: s.firstAt,
          kind: "mtr-path-change",
          severity: "warn",
          title: `Path changed ${source}->${destination}: ${hops(s.hops.length)}`,
          detail: `${s.hops.map((h) => h.ip || "*").join(" → ")}${prev ? ` (was ${hops(prev.hops.length)})` : ""} · ${s.origin}`,
          reference: `mtr:${source}->${destination}:${s.pathHash.slice(0, 12)}`,
        });
      });
    }
    return rows;
  },
};

/** True when an alert's labels fall in the scope. */
function alertInScope(i: Investigation, labels: Record<string, string>, targetName?: string): boolean {
  const get = (k: string) => (Object.hasOwn(labels, k) ? labels[k] : undefined);
  if (i.kind === "target") return get("target") === targetName;
  if (i.kind === "zone-pair") {
    const [a, b] = pairEnds(i.scope) ?? ["", ""];
    return get("source_zone") === a && get("destination_zone") === b;
  }
  const s = get("source_node");
  const d = get("destination_node");
  if (i.kind === "cluster") return true;
  return s !== undefined && touches(i, s, d);
}

const alerts: Source = {
  name: "Firing alerts",
  permission: "alerts:read",
  stored: false,
  prometheus: true,
  async read(i, env, disclose) {
    const r = await env.api.call(c.listCurrentAlerts);
    disclose("Firing alerts: only the console's own rules, and only those firing now.");
    return r.alerts
      .filter((a) => a.state === "firing" && alertInScope(i, a.labels, env.targetName))
      .map((a) => ({
        timestamp: a.activeAt,
        kind: "firing-alert" as const,
        severity:
          Object.hasOwn(a.labels, "severity") && a.labels.severity === "critical"
            ? ("error" as const)
            : ("warn" as const),
        title: `Alert ${a.labels.alertname ?? a.ruleId} firing`,
        detail: `since ${a.activeAt}${a.value === null ? "" : ` · value ${a.value}`}`,
        reference: `alert-rule:${a.ruleId}`,
      }));
  },
};

const thresholds: Source = {
  name: "Threshold crossings",
  permission: "promql:query",
  stored: false,
  prometheus: true,
  async read(i, env) {
    const rows: TimelineEntry[] = [];
    for (const q of crossingQueries(i, env.targetName)) {
      const r = await env.api.call(c.queryMetricsRange, { body: { query: q.query, ...rangeOf(i) } });
      const series = (r.result as { values?: [number, string][] }[] | undefined)?.[0]?.values ?? [];
      const from = Date.parse(i.from) / 1000;
      const points = series.filter(([t]) => t >= from).map(([t, v]) => [t, Number(v)] as const);
      rows.push(...crossings({ ...q, points }));
    }
    return rows;
  },
};

export const SOURCES: readonly Source[] = [
  thresholds,
  fleetEvents,
  k8sEvents,
  audit,
  annotations,
  maintenance,
  runs,
  pathChanges,
  alerts,
];

function failure(e: unknown): string {
  if (e instanceof ApiError)
    return e.status === 0 ? "the console cannot be reached" : `${e.status} ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}

/** Reads every source the caller may read, in parallel; one disclosure line per absent, bounded or failed one. */
export async function gather(i: Investigation, env: Env): Promise<Gathered> {
  const disclosures: string[] = [];
  if (env.config === null)
    disclosures.push("The console configuration could not be read: no stored source was requested.");
  const results = await Promise.all(
    SOURCES.map(async (s): Promise<{ rows: TimelineEntry[]; lines: string[] }> => {
      const lines: string[] = [];
      if (!env.permissions.has(s.permission))
        return { rows: [], lines: [`${s.name}: not shown (needs ${s.permission}).`] };
      if (s.stored && env.config === null) return { rows: [], lines };
      if (s.stored && env.config && !env.config.backends.database)
        return { rows: [], lines: [`${s.name}: not available (the console has no database).`] };
      if (s.prometheus && env.config && !env.config.backends.prometheus)
        return { rows: [], lines: [`${s.name}: not available (the console has no Prometheus).`] };
      try {
        const rows = await s.read(i, env, (l) => lines.push(l));
        return { rows, lines };
      } catch (e) {
        return { rows: [], lines: [...lines, `${s.name}: failed (${failure(e)}).`] };
      }
    }),
  );
  const rows = results.flatMap((r) => r.rows);
  for (const r of results) disclosures.push(...r.lines);
  return { rows, disclosures };
}
