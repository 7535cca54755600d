/**
 * The outcome of an import (or a dry run's prediction), per collection: counts, the section's warning, and each
 * item's outcome with its error status and message. Errors and skips are always listed; other rows up to a bound.
 */
import type { ImportReport, ImportSectionResult } from "@svc/contract";
import { TableHead } from "../../components/table-head.tsx";

/** Rows listed per section besides every error and skip. */
const ROWS = 200;

const LABELS: Readonly<Record<ImportSectionResult["section"], string>> = {
  targets: "Targets",
  checks: "Check definitions",
  schedules: "Schedules",
  alertRules: "Alert rules",
  maintenanceWindows: "Maintenance windows",
  webhooks: "Webhook endpoints",
  roles: "Custom roles",
  bindings: "Role bindings",
};

const BADGE: Readonly<Record<string, string>> = {
  create: "badge ok",
  update: "badge ok",
  unchanged: "badge off",
  skipped: "badge warn",
  error: "badge error",
};

function counts(s: ImportSectionResult): string {
  const c = s.counts;
  return (
    [
      [c.create, "create"],
      [c.update, "update"],
      [c.unchanged, "unchanged"],
      [c.skipped, "skipped"],
      [c.error, c.error === 1 ? "error" : "errors"],
    ] as const
  )
    .filter(([n]) => n > 0)
    .map(([n, w]) => `${n} ${w}`)
    .join(", ");
}

function SectionPlan({ s }: { s: ImportSectionResult }) {
  const notable = s.items.filter((i) => i.outcome === "error" || i.outcome === "skipped");
  const rest = s.items.filter((i) => i.outcome !== "error" && i.outcome !== "skipped").slice(0, ROWS);
  const shown = [...notable, ...rest].sort((a, b) => a.index - b.index);
  const hidden = s.items.length - shown.length;
  return (
    <div className="card" data-section={s.section}>
      <h3>
        {LABELS[s.section]} <span className="muted small">{counts(s) || "no items"}</span>
      </h3>
      {s.warning ? (
        <p className="form-error" data-testid={`warning-${s.section}`}>
          {s.warning}
        </p>
      ) : null}
      {shown.length > 0 ? (
        <div className="table-wrap">
          <table className="table" aria-label={`${LABELS[s.section]} plan`}>
            <TableHead columns={["#", "Item", "Outcome", "Why"]} />
            <tbody>
              {shown.map((i) => (
                <tr key={i.index} data-outcome={i.outcome}>
                  <td>{i.index + 1}</td>
                  <th scope="row">{i.key}</th>
                  <td>
                    <span className={BADGE[i.outcome] ?? "badge"}>
                      {i.outcome}
                      {i.status ? ` ${i.status}` : ""}
                    </span>
                  </td>
                  <td className="small">{i.message ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {hidden > 0 ? <p className="muted small">{hidden} more items, none an error or a skip.</p> : null}
    </div>
  );
}

/** A report's sections that the bundle held. */
export function ImportPlan({ report }: { report: ImportReport }) {
  const present = report.sections.filter((s) => s.state !== "absent");
  if (present.length === 0) return <p className="muted">The bundle holds no section.</p>;
  return (
    <div className="section" data-testid={report.dryRun ? "plan" : "outcome"}>
      {present.map((s) => (
        <SectionPlan key={s.section} s={s} />
      ))}
    </div>
  );
}
