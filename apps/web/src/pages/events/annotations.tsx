/**
 * Operator annotations in the feed (spec §2.11): rows with badge Note (a point) or Annotation (span) (a range);
 * a form to add one (folded behind an "Add annotation" button) and, for writers, edit and delete on each row.
 */
import * as c from "@svc/contract";
import { queryOptions } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { ApiClient } from "../../api/client.tsx";
import { ConfirmButton } from "../../components/confirm-button.tsx";
import { ActionStatus, useAction } from "../../components/use-action.tsx";
import { useApp } from "../../context.tsx";

/** Annotations up to `at` (or now), refreshed every 30 s while live. */
export const annotationsQuery = (api: ApiClient, at?: string) =>
  queryOptions({
    queryKey: ["annotations", at ?? "live"],
    queryFn: async () => (await api.call(c.listAnnotations, { query: at ? { to: at } : {} })).annotations,
    refetchInterval: at ? false : 30_000,
  });

/** The badge word of an annotation. */
export function annotationBadge(a: c.Annotation): string {
  return a.endAt ? "Annotation (span)" : "Note";
}

function fromLocalInput(v: string): string | null {
  if (!v) return null;
  const t = new Date(v).getTime();
  return Number.isFinite(t) ? new Date(t).toISOString() : null;
}

/**
 * Adds a note (now, or a span from a start to an end). Folded behind an "Add annotation" button, so the feed starts
 * at the top of the page; once opened it stays open for the next note until Close.
 */
export function AnnotationForm() {
  const [open, setOpen] = useState(false);
  if (!open)
    return (
      <p>
        <button type="button" aria-expanded={false} onClick={() => setOpen(true)}>
          Add annotation
        </button>
      </p>
    );
  return <OpenAnnotationForm onClose={() => setOpen(false)} />;
}

function OpenAnnotationForm(p: { onClose: () => void }) {
  const { api } = useApp();
  const act = useAction(["annotations"]);
  const [text, setText] = useState("");
  const [scope, setScope] = useState("");
  const [start, setStart] = useState("");
  const [end, setEnd] = useState("");
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const at = fromLocalInput(start) ?? new Date().toISOString();
    await act.run(async () => {
      await api.call(c.createAnnotation, { body: { at, endAt: fromLocalInput(end), text, scope } });
      setText("");
      setEnd("");
      setStart("");
    });
  };
  return (
    <form className="card grid-form" onSubmit={(e) => void submit(e)} aria-label="Add annotation">
      <h2>Add annotation</h2>
      {/* held while saving: the fields clear when the save lands, which would wipe text typed meanwhile */}
      <fieldset className="plain" disabled={act.busy}>
        <label>
          Text
          <textarea
            value={text}
            onChange={(e) => setText(e.target.value)}
            maxLength={4096}
            required
            rows={2}
          />
        </label>
        <label>
          Scope (empty for the whole fleet)
          <input value={scope} onChange={(e) => setScope(e.target.value)} maxLength={512} />
        </label>
        <label>
          Start (empty for now)
          <input type="datetime-local" value={start} onChange={(e) => setStart(e.target.value)} />
        </label>
        <label>
          End (for a span)
          <input type="datetime-local" value={end} onChange={(e) => setEnd(e.target.value)} />
        </label>
      </fieldset>
      <div>
        <button type="submit" disabled={act.busy}>
          Add
        </button>{" "}
        <button type="button" aria-expanded={true} onClick={p.onClose}>
          Close
        </button>
      </div>
      <ActionStatus error={act.error} notice={act.notice} />
    </form>
  );
}

/** One annotation row of the feed table. */
export function AnnotationRow(p: { note: c.Annotation; editable: boolean }) {
  const { api } = useApp();
  const act = useAction(["annotations"]);
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(p.note.text);
  const n = p.note;
  const save = async (e: FormEvent) => {
    e.preventDefault();
    await act.run(async () => {
      await api.call(c.updateAnnotation, {
        params: { id: n.id },
        body: { at: n.at, endAt: n.endAt, text, scope: n.scope },
      });
      setEditing(false);
    });
  };
  return (
    <tr className="feed-note" data-testid="feed-note">
      <td>
        <time dateTime={n.at}>{new Date(n.at).toLocaleString()}</time>
        {n.endAt ? (
          <>
            {" – "}
            <time dateTime={n.endAt}>{new Date(n.endAt).toLocaleString()}</time>
          </>
        ) : null}
      </td>
      <td>
        <span className="badge">{annotationBadge(n)}</span>
      </td>
      <td>
        {editing ? (
          <form onSubmit={(e) => void save(e)} aria-label="Edit annotation">
            <textarea value={text} onChange={(e) => setText(e.target.value)} maxLength={4096} rows={2} />
            <button type="submit" disabled={act.busy}>
              Save
            </button>
            <button type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </form>
        ) : (
          <span className="note-text">{n.text}</span>
        )}{" "}
        <span className="muted">— {n.author}</span>
        {p.editable && !editing ? (
          <>
            {" "}
            <button
              type="button"
              onClick={() => {
                setText(n.text);
                setEditing(true);
              }}
            >
              Edit
            </button>{" "}
            <ConfirmButton
              label="Delete"
              confirmLabel="Delete this annotation"
              onConfirm={() => void act.run(() => api.call(c.deleteAnnotation, { params: { id: n.id } }))}
            />
          </>
        ) : null}
        <ActionStatus error={act.error} notice={act.notice} />
      </td>
      <td>{n.scope || "fleet"}</td>
    </tr>
  );
}
