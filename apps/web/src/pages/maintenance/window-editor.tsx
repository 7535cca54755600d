/** The maintenance window form: scope (fleet, node, pair, target) with its fields, start, end, reason. */
import * as c from "@svc/contract";
import { type FormEvent, useState } from "react";
import { ActionStatus, useAction } from "../../components/use-action.tsx";
import { useApp } from "../../context.tsx";
import { localInputValue } from "../../shell/time-machine.tsx";
import { SCOPE_FIELDS, type WindowDraft, windowBody } from "./window-form.ts";

const FIELD_LABELS = {
  node: "Node",
  source: "Source node",
  destination: "Destination node",
  target: "Target (the alert's target label)",
} as const;

function draftOf(w: c.MaintenanceWindow | undefined): WindowDraft {
  const now = Date.now();
  return {
    scope: w?.scope ?? "fleet",
    node: w?.node ?? "",
    source: w?.source ?? "",
    destination: w?.destination ?? "",
    target: w?.target ?? "",
    start: localInputValue(w ? Date.parse(w.startAt) : now),
    end: localInputValue(w ? Date.parse(w.endAt) : now + 3_600_000),
    reason: w?.reason ?? "",
  };
}

/** Creates a window, or edits `window`. */
export function WindowEditor(p: { window?: c.MaintenanceWindow; onDone: () => void }) {
  const { api } = useApp();
  const act = useAction(["maintenance-windows"]);
  const [d, setD] = useState<WindowDraft>(() => draftOf(p.window));
  const [formError, setFormError] = useState("");
  const set = (k: keyof WindowDraft, v: string) => setD((x) => ({ ...x, [k]: v }));
  const w = p.window;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const r = windowBody(d);
    if (!r.ok) {
      setFormError(r.error);
      return;
    }
    setFormError("");
    const ok = await act.run(
      () =>
        w
          ? api.call(c.updateMaintenanceWindow, { params: { id: w.id }, body: r.body })
          : api.call(c.createMaintenanceWindow, { body: r.body }),
      w ? "Window saved" : "Window added",
    );
    if (ok) p.onDone();
  };
  return (
    <form
      className="card grid-form"
      onSubmit={(e) => void submit(e)}
      aria-label={w ? "Edit maintenance window" : "New maintenance window"}
    >
      <h2>{w ? "Edit maintenance window" : "New maintenance window"}</h2>
      <label>
        Scope
        <select value={d.scope} onChange={(e) => set("scope", e.target.value)}>
          {c.MAINTENANCE_SCOPES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      {SCOPE_FIELDS[d.scope].map((k) => (
        <label key={k}>
          {FIELD_LABELS[k]}
          <input
            value={d[k]}
            onChange={(e) => set(k, e.target.value)}
            maxLength={k === "target" ? 2048 : 253}
            required
          />
        </label>
      ))}
      <label>
        Starts
        <input
          type="datetime-local"
          value={d.start}
          onChange={(e) => set("start", e.target.value)}
          required
        />
      </label>
      <label>
        Ends
        <input type="datetime-local" value={d.end} onChange={(e) => set("end", e.target.value)} required />
      </label>
      <label>
        Reason
        <input value={d.reason} onChange={(e) => set("reason", e.target.value)} maxLength={1024} />
      </label>
      <div className="actions">
        <button type="submit" className="primary" disabled={act.busy}>
          {w ? "Save window" : "Add window"}
        </button>{" "}
        {w ? (
          <button type="button" onClick={p.onDone}>
            Cancel
          </button>
        ) : null}
      </div>
      {formError ? (
        <p className="form-error" role="alert">
          {formError}
        </p>
      ) : null}
      <ActionStatus error={act.error} notice={act.notice} />
    </form>
  );
}
