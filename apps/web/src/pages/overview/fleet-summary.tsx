/**
 * The Overview's fleet figures: agents, missing agents, pairs monitored/failing per protocol, worst pairs (a PMTU
 * pair with its badge, the size that crossed and the size probed).
 */
import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { FleetError, Loading } from "../../components/fleet/fleet-state.tsx";
import { cellWord, PROTOCOL_LABEL, PROTOCOLS, pct } from "../../components/fleet/format.ts";
import { TierBadge } from "../../components/fleet/protocol-switch.tsx";
import { overviewQuery } from "../../components/fleet/queries.tsx";
import { SuspectsCard } from "../../components/fleet/suspects-card.tsx";
import type { FleetOverview } from "../../components/fleet/types.ts";
import { TableHead } from "../../components/table-head.tsx";
import { useApp } from "../../context.tsx";
import { useAt } from "../../shell/time-machine.tsx";

/** A PMTU row's figures: the size that crossed (none in a black hole where nothing did) and the size probed. */
function pmtuSizes(r: FleetOverview["worstPairs"][number]): string {
  if (!r.pmtu) return "—";
  return `${r.pmtu.bytes ?? "none"} / ${r.pmtu.probeBytes ?? "?"} bytes`;
}

function Worst(p: { rows: FleetOverview["worstPairs"] }) {
  if (p.rows.length === 0) return <p className="ok">No failing or degraded pairs.</p>;
  const pmtu = p.rows.some((r) => r.pmtu !== undefined);
  const columns = ["Pair", "Protocol", "Health", "Fail ratio", "Packet loss"];
  return (
    <div className="table-wrap">
      <table className="table" data-testid="worst-pairs">
        <TableHead columns={pmtu ? [...columns, "Path MTU / probe"] : columns} />
        <tbody>
          {p.rows.map((r) => (
            <tr key={`${r.source}-${r.destination}-${r.protocol}`}>
              <td>
                <Link
                  to="/pairs/$source/$destination"
                  params={{ source: r.source, destination: r.destination }}
                >
                  {r.source} → {r.destination}
                </Link>
              </td>
              <td>{PROTOCOL_LABEL[r.protocol]}</td>
              <td>
                <TierBadge tier={r.tier} word={cellWord(r)} />
              </td>
              <td>{pct(r.failRatio)}</td>
              <td>{pct(r.lossRatio)}</td>
              {pmtu ? <td data-testid="worst-pmtu">{pmtuSizes(r)}</td> : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The summary cards (or the degraded-backend card in their place). */
export function FleetSummary() {
  const { api } = useApp();
  const at = useAt();
  const q = useQuery(overviewQuery(api, at));
  if (q.error) return <FleetError error={q.error} />;
  if (!q.data) return <Loading what="the fleet summary" />;
  const o = q.data;
  return (
    <>
      <div className="card">
        <h2>Fleet summary</h2>
        <dl className="facts" data-testid="fleet-summary">
          <dt>Agents</dt>
          <dd>{o.agents}</dd>
          <dt>Missing agents</dt>
          <dd className={o.missingAgents > 0 ? "warn" : ""}>{o.missingAgents}</dd>
        </dl>
        <div className="table-wrap summary-table">
          <table className="table">
            <TableHead columns={["Protocol", "Pairs monitored", "Failing"]} />
            <tbody>
              {PROTOCOLS.map((p) => (
                <tr key={p} data-protocol={p}>
                  <th scope="row">
                    <Link to="/matrix" search={{ protocol: p }}>
                      {PROTOCOL_LABEL[p]}
                    </Link>
                  </th>
                  <td>{o.pairs[p]?.monitored ?? 0}</td>
                  <td className={(o.pairs[p]?.failing ?? 0) > 0 ? "warn" : ""}>{o.pairs[p]?.failing ?? 0}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
      <SuspectsCard at={at} />
      <div className="card">
        <h2>Worst pairs</h2>
        <Worst rows={o.worstPairs} />
      </div>
    </>
  );
}
