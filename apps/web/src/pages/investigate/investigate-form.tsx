/** The Investigation page's parameter form: kind, scope, window; Investigate commits them to the URL. */
import { type FormEvent, useState } from "react";
import { localInputValue } from "../../shell/time-machine.tsx";
import {
  INVESTIGATION_KINDS,
  type Investigation,
  type InvestigationKind,
  KIND_LABELS,
  normaliseScope,
} from "./params.ts";

const SCOPE_HINTS: Readonly<Record<InvestigationKind, string>> = {
  pair: "node-1->node-2",
  node: "node-1",
  target: "target id",
  "zone-pair": "zone-a->zone-b",
  cluster: "",
};

export function InvestigateForm(p: {
  initial: Partial<Investigation>;
  onCommit: (i: Investigation) => void;
  /** the latest instant a window may end (now, or the Time Machine's) */
  latest: number;
}) {
  const [kind, setKind] = useState<InvestigationKind>(p.initial.kind ?? "cluster");
  const [scope, setScope] = useState(p.initial.scope ?? "");
  const [from, setFrom] = useState(localInputValue(Date.parse(p.initial.from ?? "") || p.latest - 3_600_000));
  const [to, setTo] = useState(localInputValue(Date.parse(p.initial.to ?? "") || p.latest));
  const [error, setError] = useState("");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const sc = normaliseScope(kind, scope);
    if ("error" in sc) return setError(sc.error);
    const f = new Date(from).getTime();
    const t = new Date(to).getTime();
    if (!Number.isFinite(f) || !Number.isFinite(t))
      return setError("Choose when the window starts and ends.");
    if (f >= t) return setError("The window must start before it ends.");
    if (f > p.latest) return setError("The window starts in the future.");
    setError("");
    p.onCommit({ kind, scope: sc.scope, from: new Date(f).toISOString(), to: new Date(t).toISOString() });
  };
  return (
    <form className="card investigate-form" onSubmit={submit} aria-label="Investigation parameters">
      <label>
        Kind{" "}
        <select value={kind} onChange={(e) => setKind(e.target.value as InvestigationKind)}>
          {INVESTIGATION_KINDS.map((k) => (
            <option key={k} value={k}>
              {KIND_LABELS[k]}
            </option>
          ))}
        </select>
      </label>{" "}
      {kind === "cluster" ? null : (
        <label>
          Scope{" "}
          <input
            value={scope}
            maxLength={512}
            placeholder={SCOPE_HINTS[kind]}
            onChange={(e) => setScope(e.target.value)}
          />
        </label>
      )}{" "}
      <label>
        From <input type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} />
      </label>{" "}
      <label>
        To <input type="datetime-local" value={to} onChange={(e) => setTo(e.target.value)} />
      </label>{" "}
      <button type="submit">Investigate</button>
      <p className="form-error" role="alert">
        {error}
      </p>
    </form>
  );
}
