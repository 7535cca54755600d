/**
 * Topology (/topology): cluster nodes on a ring grouped by zone, external agents apart, links coloured by their
 * worst tier over TCP/UDP/ICMP, readiness on each node. Past 30 nodes only links that are not healthy are drawn.
 * Below the picture, the same nodes as a list per zone (links to Node pages) for keyboards and screen readers.
 */
import { useQuery } from "@tanstack/react-query";
import { Link, useNavigate } from "@tanstack/react-router";
import { useMemo } from "react";
import { FleetError, Loading } from "../../components/fleet/fleet-state.tsx";
import { TIER_COLOR, TIER_LABEL, tierRank } from "../../components/fleet/format.ts";
import { TierLegend } from "../../components/fleet/protocol-switch.tsx";
import { topologyQuery } from "../../components/fleet/queries.tsx";
import type { FleetTier, FleetTopology } from "../../components/fleet/types.ts";
import { useApp } from "../../context.tsx";
import { UnfedNotice, usePushed } from "../../live/use-pushed.tsx";
import { useAt } from "../../shell/time-machine.tsx";
import { topologyLayout } from "./topology-layout.ts";

/** One undirected edge: the worse of the two directions. */
function edges(t: FleetTopology, all: boolean): { a: string; b: string; tier: FleetTier; title: string }[] {
  const m = new Map<string, { a: string; b: string; tier: FleetTier; parts: string[] }>();
  for (const l of t.links) {
    const [a, b] = l.source < l.destination ? [l.source, l.destination] : [l.destination, l.source];
    const k = `${a}\u0000${b}`;
    const e = m.get(k) ?? { a, b, tier: l.tier, parts: [] };
    if (tierRank(l.tier) > tierRank(e.tier)) e.tier = l.tier;
    e.parts.push(`${l.source} → ${l.destination}: ${TIER_LABEL[l.tier]}`);
    m.set(k, e);
  }
  return [...m.values()]
    .filter((e) => all || tierRank(e.tier) >= 2)
    .sort((x, y) => tierRank(x.tier) - tierRank(y.tier))
    .map((e) => ({ a: e.a, b: e.b, tier: e.tier, title: e.parts.join("\n") }));
}

function Picture(p: { t: FleetTopology }) {
  const navigate = useNavigate();
  const layout = useMemo(() => topologyLayout(p.t.nodes), [p.t]);
  const lines = useMemo(() => edges(p.t, p.t.nodes.length <= 30), [p.t]);
  const small = p.t.nodes.length <= 40;
  return (
    <div className="topology-box">
      <svg
        viewBox={`0 0 ${layout.width} ${layout.height}`}
        className="topology"
        style={{ maxWidth: layout.width }}
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
            >
              <title>{e.title}</title>
            </line>
          );
        })}
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
          <TierLegend tiers={["healthy", "degraded", "failing", "nodata"]} />
          {q.data.nodes.length === 0 ? <p>No nodes are registered yet.</p> : <Picture t={q.data} />}
          <ZoneList t={q.data} />
        </>
      ) : null}
    </section>
  );
}
