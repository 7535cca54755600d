/**
 * Topology (/topology): cluster nodes on a ring grouped by zone, external agents apart, links coloured by their
 * worst tier over TCP/UDP/ICMP or (Path MTU) by their PMTU badge, the reduced and black-holed ones labelled with the
 * size that crossed and the size probed; readiness on each node. The drawing is fitted to the canvas (its viewBox
 * is the content's bounds). Past 30 nodes only links that are not healthy are drawn.
 * Below the picture, the same nodes as a list per zone (links to Node pages) for keyboards and screen readers.
 */
import { useQuery } from "@tanstack/react-query";
import { Link, useNavigate } from "@tanstack/react-router";
import { useMemo, useState } from "react";
import { FleetError, Loading } from "../../components/fleet/fleet-state.tsx";
import { TIER_COLOR, TIER_LABEL, tierRank } from "../../components/fleet/format.ts";
import { TierLegend } from "../../components/fleet/protocol-switch.tsx";
import { topologyQuery } from "../../components/fleet/queries.tsx";
import type { FleetTier, FleetTopology, PmtuBadge, PmtuBadgeWord } from "../../components/fleet/types.ts";
import { useApp } from "../../context.tsx";
import { UnfedNotice, usePushed } from "../../live/use-pushed.tsx";
import { useAt } from "../../shell/time-machine.tsx";
import { topologyLayout } from "./topology-layout.ts";

/** What the links show: their worst tier over TCP, UDP and ICMP, or the path MTU reading. */
type LinkView = "tiers" | "pmtu";

/** Rank of a PMTU badge, worse higher; the tier colour it is drawn in. */
const PMTU_RANK: Record<PmtuBadgeWord, number> = {
  "Full size": 0,
  Reduced: 1,
  Recovering: 2,
  "Black hole": 3,
};
const PMTU_TIER: Record<PmtuBadgeWord, FleetTier> = {
  "Full size": "healthy",
  Reduced: "degraded",
  Recovering: "degraded",
  "Black hole": "failing",
};

/** A PMTU reading as an edge label: the badge, the size that crossed and the size probed. */
function pmtuText(b: PmtuBadge): string {
  return `${b.badge} ${b.bytes ?? "none"} / ${b.probeBytes ?? "?"} B`;
}

interface Edge {
  a: string;
  b: string;
  tier: FleetTier;
  /** the worse direction's PMTU reading (view pmtu) */
  pmtu?: PmtuBadge;
  title: string;
}

/** One undirected edge: the worse of the two directions, by tier or (view pmtu) by PMTU badge. */
function edges(t: FleetTopology, all: boolean, view: LinkView): Edge[] {
  const m = new Map<string, Edge & { parts: string[]; rank: number }>();
  for (const l of t.links) {
    const [a, b] = l.source < l.destination ? [l.source, l.destination] : [l.destination, l.source];
    const k = `${a}\u0000${b}`;
    const tier: FleetTier = view === "tiers" ? l.tier : l.pmtu ? PMTU_TIER[l.pmtu.badge] : "nodata";
    const rank = view === "tiers" ? tierRank(l.tier) : l.pmtu ? PMTU_RANK[l.pmtu.badge] : -1;
    const e = m.get(k) ?? { a, b, tier, rank, parts: [], title: "" };
    if (rank >= e.rank) {
      e.tier = tier;
      e.rank = rank;
      if (view === "pmtu" && l.pmtu) e.pmtu = l.pmtu;
    }
    const word = view === "tiers" ? TIER_LABEL[l.tier] : l.pmtu ? pmtuText(l.pmtu) : "no PMTU reading";
    e.parts.push(`${l.source} → ${l.destination}: ${word}`);
    m.set(k, e);
  }
  return [...m.values()]
    .filter((e) => all || tierRank(e.tier) >= 2)
    .sort((x, y) => tierRank(x.tier) - tierRank(y.tier))
    .map((e) => ({
      a: e.a,
      b: e.b,
      tier: e.tier,
      ...(e.pmtu ? { pmtu: e.pmtu } : {}),
      title: e.parts.join("\n"),
    }));
}

/** The links switch: tiers or path MTU. */
function LinkSwitch(p: { value: LinkView; onChange: (v: LinkView) => void }) {
  const options: [LinkView, string][] = [
    ["tiers", "Worst of TCP, UDP, ICMP"],
    ["pmtu", "Path MTU"],
  ];
  return (
    <fieldset className="switch" aria-label="Links show">
      {options.map(([v, label]) => (
        <button
          key={v}
          type="button"
          aria-pressed={v === p.value}
          className={v === p.value ? "primary" : ""}
          onClick={() => p.onChange(v)}
        >
          {label}
        </button>
      ))}
    </fieldset>
  );
}

function Picture(p: { t: FleetTopology; view: LinkView }) {
  const navigate = useNavigate();
  const layout = useMemo(() => topologyLayout(p.t.nodes), [p.t]);
  const lines = useMemo(() => edges(p.t, p.t.nodes.length <= 30, p.view), [p.t, p.view]);
  const small = p.t.nodes.length <= 40;
  const box = layout.bounds;
  return (
    <div className="topology-box">
      <svg
        viewBox={`${box.x} ${box.y} ${box.width} ${box.height}`}
        className="topology"
        role="img"
        aria-label={`Topology of ${p.t.nodes.length} nodes; the list below names them by zone.`}
        data-testid="topology-svg"
      >
        {layout.external ? (
          <g>
            <rect
              x={layout.external.x - 60}
              y={layout.external.top - 30}
              width={170}
              height={layout.external.bottom - layout.external.top + 30}
              className="external-box"
            />
            <text x={layout.external.x - 50} y={layout.external.top - 12} className="zone-label">
              external agents
            </text>
          </g>
        ) : null}
        {lines.map((e) => {
          const a = layout.at.get(e.a);
          const b = layout.at.get(e.b);
          if (!a || !b) return null;
          return (
            <line
              key={`${e.a}-${e.b}`}
              x1={a.x}
              y1={a.y}
              x2={b.x}
              y2={b.y}
              stroke={TIER_COLOR[e.tier]}
              strokeWidth={tierRank(e.tier) >= 2 ? 3 : 1.5}
              data-tier={e.tier}
              data-pmtu={e.pmtu?.badge}
            >
              <title>{e.title}</title>
            </line>
          );
        })}
        {p.view === "pmtu" && small
          ? lines.map((e) => {
              const a = layout.at.get(e.a);
              const b = layout.at.get(e.b);
              if (!a || !b || !e.pmtu || e.pmtu.badge === "Full size") return null;
              return (
                <text
                  key={`label-${e.a}-${e.b}`}
                  x={(a.x + b.x) / 2}
                  y={(a.y + b.y) / 2 - 6}
                  textAnchor="middle"
                  className="edge-label"
                  data-testid="pmtu-edge-label"
                >
                  {pmtuText(e.pmtu)}
                </text>
              );
            })
          : null}
        {layout.zones.map((z) => (
          <text key={z.zone} x={z.x} y={z.y} textAnchor="middle" className="zone-label">
            {z.zone} ({z.count})
          </text>
        ))}
        {p.t.nodes.map((n) => {
          const at = layout.at.get(n.name);
          if (!at) return null;
          return (
            // biome-ignore lint/a11y/noStaticElementInteractions: pointer shortcut; the list below is the keyboard path
            <g
              key={n.name}
              className={n.ready ? "topo-node" : "topo-node not-ready"}
              data-node={n.name}
              data-ready={n.ready}
              onClick={() => void navigate({ to: "/nodes/$name", params: { name: n.name } })}
            >
              <circle cx={at.x} cy={at.y} r={small ? 9 : 5} />
              {small ? (
                <text x={at.x + 12} y={at.y + 4} className="node-label">
                  {n.name}
                  {n.ready ? "" : " (not ready)"}
                </text>
              ) : null}
              <title>{`${n.name} · ${n.zone} · ${n.ready ? "ready" : "not ready"}`}</title>
            </g>
          );
        })}
      </svg>
    </div>
  );
}

function ZoneList(p: { t: FleetTopology }) {
  const groups = new Map<string, FleetTopology["nodes"]>();
  for (const n of p.t.nodes) {
    const k = n.external ? "external agents" : n.zone;
    groups.set(k, [...(groups.get(k) ?? []), n]);
  }
  const keys = [...groups.keys()].sort((a, b) =>
    a === "external agents" ? 1 : b === "external agents" ? -1 : a.localeCompare(b),
  );
  return (
    <div className="zone-list">
      {keys.map((k) => (
        <div key={k} className="card" data-zone={k}>
          <h2>{k}</h2>
          <ul>
            {(groups.get(k) ?? []).map((n) => (
              <li key={n.name}>
                <Link to="/nodes/$name" params={{ name: n.name }}>
                  {n.name}
                </Link>{" "}
                {n.ready ? <span className="ok">ready</span> : <span className="warn">not ready</span>}
                {n.agent ? (
                  <span className="muted small"> · {n.agent.podIP}</span>
                ) : (
                  <span className="muted small"> · no agent</span>
                )}
              </li>
            ))}
          </ul>
        </div>
      ))}
    </div>
  );
}

/** The Topology page. */
export function TopologyPage() {
  const { api } = useApp();
  const at = useAt();
  // nodes come and go on the topology topic, link tiers change on the matrix topic; no polling while fed
  const fed = usePushed(["topology", "matrix"], ["fleet", "topology"], at === undefined);
  const q = useQuery(topologyQuery(api, at, fed));
  const [view, setView] = useState<LinkView>("tiers");
  return (
    <section className="page">
      <h1>Topology</h1>
      <UnfedNotice enabled={at === undefined} />
      {q.error ? <FleetError error={q.error} /> : null}
      {q.isPending ? <Loading what="the topology" /> : null}
      {q.data ? (
        <>
          {q.data.controllerWarmingUp ? (
            <p className="warn">
              The controller started moments ago and agents are still coming back: this picture may be
              incomplete.
            </p>
          ) : null}
          {q.data.figuresAbsent ? (
            <p className="muted">
              No metrics server is configured: links show the plan, with nothing measured.
            </p>
          ) : null}
          <div className="topology-controls">
            <LinkSwitch value={view} onChange={setView} />
            {view === "tiers" ? (
              <TierLegend tiers={["healthy", "degraded", "failing", "nodata"]} />
            ) : (
              <ul className="legend" aria-label="Colour key">
                {(["Full size", "Reduced", "Recovering", "Black hole"] as const).map((w) => (
                  <li key={w}>
                    <span
                      className="swatch"
                      style={{ background: TIER_COLOR[PMTU_TIER[w]] }}
                      aria-hidden="true"
                    />
                    {w}
                  </li>
                ))}
                <li>
                  <span className="swatch" style={{ background: TIER_COLOR.nodata }} aria-hidden="true" />
                  no reading
                </li>
              </ul>
            )}
          </div>
          {q.data.nodes.length === 0 ? (
            <p>No nodes are registered yet.</p>
          ) : (
            <Picture t={q.data} view={view} />
          )}
          <ZoneList t={q.data} />
        </>
      ) : null}
    </section>
  );
}
