/** The ranked causes and the merged timeline of an investigation. */
import type { ReactNode } from "react";
import type { Ranking } from "./causes.ts";
import { type TimelineEntry, timelineBadge } from "./timeline.ts";

const when = (iso: string) => new Date(iso).toLocaleString();

/** The ranked list; `symptom` marks the rows that are the scope's own symptoms (their scores unchanged). */
export function CausesView(p: { ranking: Ranking; symptom?: (row: TimelineEntry) => boolean }) {
  const { onset, causes } = p.ranking;
  return (
    <section className="card" aria-label="Likely causes">
      <h2>Likely causes</h2>
      {onset === null ? (
        <p className="muted">
          No threshold crossing in the window (loss above 1%, or RTT above twice the window median): there is
          no onset, so nothing is ranked.
        </p>
      ) : (
        <>
          <p>
            Onset: <time dateTime={onset}>{when(onset)}</time>
          </p>
          {causes.length === 0 ? (
            <p className="muted">Nothing weighed in the 5 minutes before the onset.</p>
          ) : (
            <ol className="causes">
              {causes.map((c) => (
                <li key={`${c.entry.kind}:${c.entry.reference}:${c.entry.timestamp}`}>
                  <span className={`badge kind-${c.entry.kind}`}>{timelineBadge(c.entry.kind)}</span>{" "}
                  <strong>{c.entry.title}</strong> <span className="muted">{c.label}</span>{" "}
                  <span className="score">score {c.score.toFixed(2)}</span>
                  {p.symptom?.(c.entry) ? (
                    <>
                      {" "}
                      <span className="badge symptom" data-testid="symptom-badge">
                        symptom
                      </span>
                    </>
                  ) : null}
                </li>
              ))}
            </ol>
          )}
        </>
      )}
    </section>
  );
}

export function TimelineView(p: {
  rows: readonly TimelineEntry[];
  action?: (row: TimelineEntry) => ReactNode;
}) {
  return (
    <section className="card" aria-label="Timeline">
      <h2>Timeline</h2>
      {p.rows.length === 0 ? (
        <p className="muted">Nothing in the window.</p>
      ) : (
        <table className="timeline">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Kind</th>
              <th scope="col">Severity</th>
              <th scope="col">What</th>
              <th scope="col">Detail</th>
              {p.action ? <th scope="col" aria-label="Actions" /> : null}
            </tr>
          </thead>
          <tbody>
            {p.rows.map((r) => (
              <tr
                key={`${r.kind}|${r.timestamp}|${r.title}|${r.reference}`}
                className={r.excluded ? "excluded" : undefined}
              >
                <td>
                  <time dateTime={r.timestamp}>{when(r.timestamp)}</time>
                </td>
                <td>
                  <span className={`badge kind-${r.kind}`}>{timelineBadge(r.kind)}</span>
                </td>
                <td>{r.severity}</td>
                <td>{r.title}</td>
                <td className="muted">
                  {r.detail}
                  {r.reference.startsWith("/") ? (
                    <>
                      {" "}
                      <a href={r.reference}>open</a>
                    </>
                  ) : null}
                </td>
                {p.action ? <td>{p.action(r)}</td> : null}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function Disclosures(p: { lines: readonly string[] }) {
  if (p.lines.length === 0) return null;
  return (
    <section className="card" aria-label="Sources">
      <h2>Sources</h2>
      <ul className="disclosures">
        {p.lines.map((l) => (
          <li key={l}>{l}</li>
        ))}
      </ul>
    </section>
  );
}
