/**
 * Pair page (/pairs/:source/:destination?window=): per-protocol health, RTT and loss history over 15m/1h/6h/24h,
 * the latest MTR path, and Run check (runs:create only). An unknown node gets the named 404 card.
 */
import { useQuery } from "@tanstack/react-query";
import { Link, useNavigate, useParams, useSearch } from "@tanstack/react-router";
import { useMemo } from "react";
import { can, meQuery } from "../../api/queries.tsx";
import { FleetError, fleetFailure, Loading } from "../../components/fleet/fleet-state.tsx";
import { cellWord, ms, PROTOCOL_LABEL, PROTOCOLS, pct } from "../../components/fleet/format.ts";
import { TierBadge } from "../../components/fleet/protocol-switch.tsx";
import { pairQuery, WINDOWS } from "../../components/fleet/queries.tsx";
import { SuspectNote } from "../../components/fleet/suspect-note.tsx";
import { type ChartSeries, TimeChart } from "../../components/fleet/time-chart.tsx";
import type { FleetPair, FleetProtocol, PairWindow } from "../../components/fleet/types.ts";
import { TableHead } from "../../components/table-head.tsx";
import { useApp } from "../../context.tsx";
import { useAt } from "../../shell/time-machine.tsx";
import { RecentChanges } from "../events/recent-changes.tsx";
import { MtrPath } from "./mtr-path.tsx";
import { PairRuns } from "./pair-runs.tsx";
import { PathHistory } from "./path-history.tsx";
import { RunCheck } from "./run-check.tsx";

const WINDOW_SECONDS: Record<PairWindow, number> = { "15m": 900, "1h": 3600, "6h": 21_600, "24h": 86_400 };
const LINE: Record<FleetProtocol, string> = {
  tcp: "#1f5fbf",
  udp: "#8a3ffc",
  icmp: "#d12771",
  pmtu: "#007d79",
};

function series(pair: FleetPair, pick: "rtt" | "loss"): ChartSeries[] {
  return PROTOCOLS.flatMap((proto) => {
    const h = pair.protocols[proto]?.history;
    if (!h || h.length === 0) return [];
    const points = h.map((x) => ({
      t: x.t,
      v:
        pick === "rtt"
          ? x.rttSeconds === undefined
            ? undefined
            : x.rttSeconds * 1000
          : x.lossRatio === undefined
            ? undefined
            : x.lossRatio * 100,
    }));
    return points.some((x) => x.v !== undefined)
      ? [{ label: PROTOCOL_LABEL[proto], color: LINE[proto], points }]
      : [];
  });
}

function HealthTable(p: { pair: FleetPair }) {
  return (
    <div className="table-wrap">
      <table className="table" data-testid="pair-health">
        <TableHead columns={["Protocol", "Health", "Fail ratio", "Packet loss", "RTT p95 / Path MTU"]} />
        <tbody>
          {PROTOCOLS.map((proto) => {
            const x = p.pair.protocols[proto];
            return (
              <tr key={proto} data-protocol={proto}>
                <th scope="row">{PROTOCOL_LABEL[proto]}</th>
                <td>{x ? <TierBadge tier={x.tier} word={cellWord(x)} /> : <TierBadge tier="nodata" />}</td>
                <td>{pct(x?.failRatio)}</td>
                <td>{pct(x?.lossRatio)}</td>
                <td>
                  {proto !== "pmtu"
                    ? ms(x?.rttP95Seconds)
                    : x?.pmtu?.bytes === undefined
                      ? "—"
                      : `${x.pmtu.bytes} / ${x.pmtu.probeBytes ?? "—"} bytes`}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {PROTOCOLS.flatMap((proto) => {
        const why = p.pair.protocols[proto]?.reason;
        return why ? (
          <p key={proto} className="muted small" data-testid={`tier-reason-${proto}`}>
            {PROTOCOL_LABEL[proto]}: {why}
          </p>
        ) : (
          []
        );
      })}
    </div>
  );
}

/** The Pair page. */
export function PairPage() {
  const { api } = useApp();
  const params = useParams({ strict: false });
  const source = params.source ?? "";
  const destination = params.destination ?? "";
  const raw = useSearch({ strict: false }).window;
  const window: PairWindow = (WINDOWS as readonly string[]).includes(raw ?? "") ? (raw as PairWindow) : "1h";
  const navigate = useNavigate();
  const at = useAt();
  const q = useQuery(pairQuery(api, source, destination, window, at));
  const me = useQuery(meQuery(api)).data;
  const rtt = useMemo(() => (q.data ? series(q.data, "rtt") : []), [q.data]);
  const loss = useMemo(() => (q.data ? series(q.data, "loss") : []), [q.data]);
  return (
    <section className="page">
      <h1>
        {source} → {destination}
      </h1>
      <p className="muted small">
        <Link to="/nodes/$name" params={{ name: source }}>
          {source}
        </Link>{" "}
        ·{" "}
        <Link to="/nodes/$name" params={{ name: destination }}>
          {destination}
        </Link>{" "}
        ·{" "}
        <Link to="/pairs/$source/$destination" params={{ source: destination, destination: source }}>
          reverse direction
        </Link>
      </p>
      <SuspectNote subject={{ source, destination }} at={at} />
      <div className="with-rail">
        <div>
          {q.error ? <FleetError error={q.error} subject={source} /> : null}
          {q.isPending ? <Loading what="the pair" /> : null}
          {q.data ? (
            <>
              <div className="card">
                <h2>Health</h2>
                <HealthTable pair={q.data} />
              </div>
              <div className="card">
                <div className="toolbar">
                  <h2>History</h2>
                  <label>
                    Window{" "}
                    <select
                      value={window}
                      onChange={(e) =>
                        void navigate({
                          to: "/pairs/$source/$destination",
                          params: { source, destination },
                          search: { window: e.target.value },
                        })
                      }
                    >
                      {WINDOWS.map((w) => (
                        <option key={w} value={w}>
                          {w}
                        </option>
                      ))}
                    </select>
                  </label>
                </div>
                <TimeChart
                  title="Round-trip time"
                  unit="ms"
                  series={rtt}
                  windowSeconds={WINDOW_SECONDS[window]}
                />
                <TimeChart
                  title="Packet loss"
                  unit="%"
                  series={loss}
                  windowSeconds={WINDOW_SECONDS[window]}
                />
              </div>
              <MtrPath mtr={q.data.mtr} />
              {at === undefined && can(me, "mtr:read") ? (
                <PathHistory source={source} destination={destination} />
              ) : null}
            </>
          ) : null}
          {can(me, "runs:create") && !(q.error && fleetFailure(q.error).key === "unknown") ? (
            <RunCheck source={source} destination={destination} past={at !== undefined} />
          ) : null}
          {can(me, "runs:read") && !(q.error && fleetFailure(q.error).key === "unknown") ? (
            <PairRuns
              source={source}
              destination={destination}
              past={at !== undefined}
              canCreate={can(me, "runs:create")}
            />
          ) : null}
        </div>
        {q.error && fleetFailure(q.error).key === "unknown" ? null : (
          <RecentChanges object={{ kind: "pair", source, destination }} {...(at ? { at } : {})} />
        )}
      </div>
    </section>
  );
}
