/**
 * The alert rule editor: name, PromQL expression, `for`, labels and annotations (`name=value` lines), description,
 * enabled. Preview (POST /api/v1/alert-rules/preview) evaluates the draft now and lists what it matches, storing
 * nothing; Save creates or replaces the rule. Refusals (422 `alert name collision`, an expression Prometheus
 * refuses, a name without a letter or digit) are shown on the form.
 */
import * as c from "@svc/contract";
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { describeError } from "../../api/client.tsx";
import { ActionStatus, useAction } from "../../components/use-action.tsx";
import { useApp } from "../../context.tsx";
import { formatLines, parseLines } from "./label-lines.ts";

/** Props of RuleEditor. */
export interface RuleEditorProps {
  /** the rule being edited; undefined for a new one */
  rule?: c.AlertRule;
  /** after a save, or Cancel */
  onDone: () => void;
}

type Preview = c.ResultOf<typeof c.previewAlertRule>;

function labelText(labels: Record<string, string>): string {
  return Object.entries(labels)
    .filter(([k]) => k !== "alertname")
    .map(([k, v]) => `${k}="${v}"`)
    .join(", ");
}

/** The editor form of one rule. */
export function RuleEditor(p: RuleEditorProps) {
  const { api } = useApp();
  const act = useAction(["alert-rules", "alerts"]);
  const r = p.rule;
  const [name, setName] = useState(r?.name ?? "");
  const [expr, setExpr] = useState(r?.expr ?? "");
  const [forSeconds, setFor] = useState(String(r?.forSeconds ?? 60));
  const [labels, setLabels] = useState(formatLines(r?.labels ?? {}));
  const [annotations, setAnnotations] = useState(formatLines(r?.annotations ?? {}));
  const [description, setDescription] = useState(r?.description ?? "");
  const [enabled, setEnabled] = useState(r?.enabled ?? true);
  const [formError, setFormError] = useState("");
  const preview = useMutation({
    mutationFn: (body: c.AlertRuleInput) => api.call(c.previewAlertRule, { body }),
  });

  const draft = (): c.AlertRuleInput | undefined => {
    const l = parseLines(labels, "Labels");
    const a = parseLines(annotations, "Annotations");
    const f = Number(forSeconds);
    const bad = !l.ok ? l.error : !a.ok ? a.error : undefined;
    if (bad) {
      setFormError(bad);
      return undefined;
    }
    if (!Number.isInteger(f) || f < 0 || f > c.ALERT_FOR_MAX_SECONDS) {
      setFormError(`For must be a whole number of seconds from 0 to ${c.ALERT_FOR_MAX_SECONDS}`);
      return undefined;
    }
    setFormError("");
    return {
      name,
      expr,
      forSeconds: f,
      labels: l.ok ? l.map : {},
      annotations: a.ok ? a.map : {},
      description,
      enabled,
    };
  };

  const save = async (e: FormEvent) => {
    e.preventDefault();
    const body = draft();
    if (!body) return;
    const ok = await act.run(
      () =>
        r
          ? api.call(c.updateAlertRule, { params: { id: r.id }, body })
          : api.call(c.createAlertRule, { body }),
      `Rule ${name} saved`,
    );
    if (ok) p.onDone();
  };

  const runPreview = () => {
    const body = draft();
    if (body) preview.mutate(body);
  };

  const title = r ? `Edit rule ${r.name}` : "New alert rule";
  return (
    <form className="card grid-form" onSubmit={(e) => void save(e)} aria-label={r ? "Edit rule" : "New rule"}>
      <h2>{title}</h2>
      <label>
        Name
        <input value={name} onChange={(e) => setName(e.target.value)} maxLength={128} required />
      </label>
      <p className="muted small">Alert name: {c.alertNameOf(name) || "—"}</p>
      <label>
        Expression (PromQL; every series it returns is one alert)
        <textarea
          value={expr}
          onChange={(e) => setExpr(e.target.value)}
          maxLength={c.ALERT_EXPR_MAX}
          rows={3}
          required
        />
      </label>
      <label>
        For (seconds the expression must hold before the alert fires)
        <input
          type="number"
          min={0}
          max={c.ALERT_FOR_MAX_SECONDS}
          value={forSeconds}
          onChange={(e) => setFor(e.target.value)}
        />
      </label>
      <label>
        Labels (one name=value per line)
        <textarea value={labels} onChange={(e) => setLabels(e.target.value)} rows={2} />
      </label>
      <label>
        Annotations (one name=value per line)
        <textarea value={annotations} onChange={(e) => setAnnotations(e.target.value)} rows={2} />
      </label>
      <label>
        Description
        <textarea
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          maxLength={2048}
          rows={2}
        />
      </label>
      <label className="inline">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Enabled
      </label>
      <div className="actions">
        <button type="button" onClick={runPreview} disabled={preview.isPending || expr.trim() === ""}>
          Preview
        </button>{" "}
        <button type="submit" className="primary" disabled={act.busy}>
          {r ? "Save rule" : "Create rule"}
        </button>{" "}
        {r ? (
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
      <PreviewResult pending={preview.isPending} error={preview.error} data={preview.data} />
    </form>
  );
}

/** What a preview answered. */
function PreviewResult(p: { pending: boolean; error: Error | null; data: Preview | undefined }) {
  if (p.pending) return <p role="status">Evaluating…</p>;
  if (p.error)
    return (
      <p className="form-error" role="alert" data-testid="preview-error">
        Preview: {describeError(p.error)}
      </p>
    );
  if (!p.data) return null;
  const d = p.data;
  return (
    <section aria-label="Preview" data-testid="preview">
      <h3>
        {d.total === 0
          ? `${d.alertName} matches nothing now`
          : `${d.alertName} matches ${d.total} series now${d.total > d.series.length ? ` (first ${d.series.length} shown)` : ""}`}
      </h3>
      {d.series.length > 0 ? (
        <table className="table" aria-label="Preview series">
          <thead>
            <tr>
              <th scope="col">Labels</th>
              <th scope="col">Value</th>
            </tr>
          </thead>
          <tbody>
            {d.series.map((s) => (
              <tr key={JSON.stringify(s.labels)} data-testid="preview-row">
                <td>{labelText(s.labels)}</td>
                <td>{s.value === null ? "—" : s.value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
