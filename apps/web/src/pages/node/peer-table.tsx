/**
 * The Node page's per-peer table (spec §4.4): peer, Fail ratio, Packet loss (only when measured), Path MTU / probe
 * (PMTU only, where the RTT column drops out), RTT p95.
 */
import { Link } from "@tanstack/react-router";
import { ms, pct } from "../../components/fleet/format.ts";
import { TierBadge } from "../../components/fleet/protocol-switch.tsx";
import type { FleetProtocol, PeerRow } from "../../components/fleet/types.ts";

/** The table; `node` is the page's node, so each row links to the pair in the right direction. */
export function PeerTable(p: {
  node: string;
  direction: "to" | "from";
  rows: PeerRow[];
  protocol: FleetProtocol;
}) {
  const pmtu = p.protocol === "pmtu";
  const loss = p.rows.some((r) => r.lossRatio !== undefined);
  if (p.rows.length === 0) return <p className="muted">No peers.</p>;
  return (
    <div className="table-wrap">
      <table className="table" data-testid="peer-table">
        <thead>
          <tr>
            <th scope="col">Peer</th>
            <th scope="col">Tier</th>
            <th scope="col">Fail ratio</th>
            {loss ? <th scope="col">Packet loss</th> : null}
            {pmtu ? <th scope="col">Path MTU / probe</th> : <th scope="col">RTT p95</th>}
          </tr>
        </thead>
        <tbody>
          {p.rows.map((r) => {
            const [source, destination] = p.direction === "to" ? [p.node, r.peer] : [r.peer, p.node];
            return (
              <tr key={r.peer}>
                <td>
                  <Link to="/pairs/$source/$destination" params={{ source, destination }}>
                    {r.peer}
                  </Link>
                </td>
                <td>
                  <TierBadge tier={r.tier} />
                </td>
                <td>{pct(r.failRatio)}</td>
                {loss ? <td>{pct(r.lossRatio)}</td> : null}
                {pmtu ? (
                  <td>
                    {r.pmtuBytes ?? "—"} / {r.probeBytes ?? "—"}
                  </td>
                ) : (
                  <td>{ms(r.rttP95Seconds)}</td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
