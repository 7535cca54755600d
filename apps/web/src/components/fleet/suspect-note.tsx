/**
 * On the Pair and Node pages: the suspect that explains what this page shows, when there is one ("explained by a
 * suspect elsewhere: zone-a ↔ zone-c partitioned"), or that this pair or node is itself the suspect.
 */
import type { Suspect } from "@svc/contract";
import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useApp } from "../../context.tsx";
import { suspectsQuery } from "./queries.tsx";
import { explainsPair, explanation, namesElement, suspectElement, suspectTitle } from "./suspect-words.ts";

/** What the note is about. */
export type NoteSubject = { node: string } | { source: string; destination: string };

const touches = (s: Suspect, node: string) =>
  s.scope.some(
    (b) =>
      b.sources === null ||
      b.destinations === null ||
      b.sources.includes(node) ||
      b.destinations.includes(node),
  );

/** The note, or nothing when no suspect concerns the subject. */
export function SuspectNote(p: { subject: NoteSubject; at?: string }) {
  const { api } = useApp();
  const data = useQuery(suspectsQuery(api, p.at)).data;
  const subject = p.subject;
  const relevant = explanation(data?.suspects).filter((s) =>
    "node" in subject
      ? s.node === subject.node || touches(s, subject.node)
      : explainsPair(s, undefined, subject.source, subject.destination),
  );
  if (relevant.length === 0) return null;
  const what = "node" in subject ? "node" : "pair";
  return (
    <div className="suspect-note" data-testid="suspect-note">
      {relevant.map((s) => (
        <p key={s.id} data-suspect-id={s.id}>
          {namesElement(s, subject) ? (
            <>
              <strong>This {what} is the suspect:</strong> {suspectTitle(s)}.{" "}
            </>
          ) : (
            <>
              <strong>Explained by a suspect elsewhere:</strong> {suspectTitle(s)},{" "}
              {s.node ? (
                <Link to="/nodes/$name" params={{ name: s.node }}>
                  {suspectElement(s)}
                </Link>
              ) : (
                suspectElement(s)
              )}
              .{" "}
            </>
          )}
          <span className="muted">{s.evidence[0]}</span>
        </p>
      ))}
    </div>
  );
}
