/**
 * The Node page's per-peer table (spec §4.4): peer, Fail ratio, Packet loss (only when measured), Path MTU / probe
 * (PMTU only, where the RTT column drops out), RTT p95.
 */
import { Link } from "@tanstack/react-router";
import { ms, pct } from "../../components/fleet/format.ts";
import { TierBadge } from "../../components/fleet/protocol-switch.tsx";
import type { FleetProtocol, PeerRow } from "../../components/fleet/types.ts";
import { TableHead } from "../../components/table-head.tsx";

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
        <TableHead
          columns={[
            "Peer",
            "Tier",
            "Fail ratio",
            loss && "Packet loss",
            pmtu ? "Path MTU / probe" : "RTT p95",
          ]}
        />
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
