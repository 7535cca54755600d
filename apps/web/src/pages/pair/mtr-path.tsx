/** The latest MTR path of a pair: hop number, address (blank for a silent hop), RTT, and loss when measured. */
import { ms, pct } from "../../components/fleet/format.ts";
import type { FleetPair } from "../../components/fleet/types.ts";
import { TableHead } from "../../components/table-head.tsx";

/** The card; the Loss column only when some hop carries a loss figure. */
export function MtrPath(p: { mtr: FleetPair["mtr"] }) {
  const loss = p.mtr?.hops.some((h) => h.lossRatio !== undefined) ?? false;
  return (
    <div className="card">
      <h2>Latest MTR path</h2>
      {!p.mtr || p.mtr.hops.length === 0 ? (
        <p className="muted">No trace recorded for this pair.</p>
      ) : (
        <>
          <p className="muted small">Traced {new Date(p.mtr.at).toLocaleString()}</p>
          <div className="table-wrap">
            <table className="table" data-testid="mtr-hops">
              <TableHead columns={["Hop", "Address", "RTT", loss && "Loss"]} />
              <tbody>
                {p.mtr.hops.map((h) => (
                  <tr key={h.number}>
                    <td>{h.number}</td>
                    <td>{h.ip === "" ? <span className="muted">silent</span> : <code>{h.ip}</code>}</td>
                    <td>{ms(h.rttSeconds)}</td>
                    {loss ? <td>{pct(h.lossRatio)}</td> : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </div>
  );
}
