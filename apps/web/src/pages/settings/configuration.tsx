/**
 * Settings -> Configuration (spec §2.12, §8.5): Export downloads the bundle of every section the caller can read;
 * choosing a bundle file runs a dry run at once and shows each collection's predicted outcome (only the newest
 * file's plan: a dry run answering after another file was chosen is dropped); Apply imports that file and shows
 * what was done. docs/operations.md, "Moving configuration between consoles".
 */
import * as c from "@svc/contract";
import { type ChangeEvent, useRef, useState } from "react";
import { describeError } from "../../api/client.tsx";
import { ActionStatus, useAction } from "../../components/use-action.tsx";
import { useApp } from "../../context.tsx";
import { ImportPlan } from "./configuration-plan.tsx";

/** A file chosen, its bundle, and the dry run's plan once it answered. */
interface Chosen {
  name: string;
  bundle: c.ConfigBundleInput;
  plan: c.ImportReport | null;
}

/** Why `text` is not a bundle this console takes, or the bundle. */
function readBundle(text: string): c.ConfigBundleInput | string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return "This file is not JSON.";
  }
  const p = c.ConfigBundleInput.safeParse(json);
  if (p.success) return p.data;
  return `This file is not a configuration bundle this console reads: ${p.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join(".") || "bundle"}: ${i.message}`)
    .join("; ")}`;
}

/** The file name of an export made at `iso` (colons are not safe in every file system). */
export function bundleFileName(iso: string): string {
  return `svc-config-${iso.replace(/:/g, "-")}.json`;
}

/** The Configuration section. */
export function ConfigurationSection() {
  const { api } = useApp();
  const act = useAction([
    "targets",
    "checks",
    "schedules",
    "alert-rules",
    "maintenance",
    "webhooks",
    "roles",
  ]);
  const [exportNote, setExportNote] = useState("");
  const [chosen, setChosen] = useState<Chosen | null>(null);
  const [planError, setPlanError] = useState("");
  const [applied, setApplied] = useState<c.ImportReport | null>(null);
  const latest = useRef(0);

  const download = () =>
    void act.run(async () => {
      const bundle = await api.call(c.exportConfig);
      const blob = new Blob([`${JSON.stringify(bundle, null, 2)}\n`], { type: "application/json" });
      const url = URL.createObjectURL(blob);
      const a = document.createElement("a");
      a.href = url;
      a.download = bundleFileName(bundle.exportedAt);
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setExportNote(
        bundle.omitted.length === 0
          ? "Every section exported."
          : `Left out (your roles cannot read them): ${bundle.omitted.join(", ")}.`,
      );
    });

  const choose = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    // cleared, so choosing the same file again (after an apply, to see what is left) runs a new dry run
    e.target.value = "";
    const mine = ++latest.current;
    setApplied(null);
    setPlanError("");
    setChosen(null);
    if (!file) return;
    if (file.size > c.CONFIG_BUNDLE_MAX_BYTES) {
      setPlanError(
        `${file.name} is over the ${c.CONFIG_BUNDLE_MAX_BYTES / 1024 / 1024} MiB a bundle may hold.`,
      );
      return;
    }
    const bundle = readBundle(await file.text());
    if (mine !== latest.current) return;
    if (typeof bundle === "string") {
      setPlanError(`${file.name}: ${bundle}`);
      return;
    }
    setChosen({ name: file.name, bundle, plan: null });
    try {
      const plan = await api.call(c.importConfig, { query: { dryRun: "true" }, body: bundle });
      if (mine === latest.current) setChosen({ name: file.name, bundle, plan });
    } catch (err) {
      if (mine === latest.current) setPlanError(`Dry run of ${file.name} failed: ${describeError(err)}`);
    }
  };

  const apply = (ch: Chosen) =>
    void act.run(async () => {
      const mine = latest.current;
      try {
        const report = await api.call(c.importConfig, { query: { dryRun: "false" }, body: ch.bundle });
        if (mine !== latest.current) return;
        setApplied(report);
        setChosen(null);
      } catch (err) {
        throw new Error(
          `Apply of ${ch.name} failed: ${describeError(err)} Part of it may have been written: choose the file ` +
            "again to see what is left to do.",
        );
      }
    }, `${ch.name} applied.`);

  const errors = chosen?.plan?.sections.reduce((n, s) => n + s.counts.error, 0) ?? 0;
  return (
    <div className="section">
      <div className="card">
        <h2>Export</h2>
        <p className="muted small">
          Targets, check definitions, schedules, alert rules, maintenance windows, webhook endpoints (never
          their secrets), custom roles and role bindings: each section your roles can read.
        </p>
        <button type="button" className="primary" onClick={download} disabled={act.busy}>
          Export configuration
        </button>
        <p className="muted small" data-testid="export-note">
          {exportNote}
        </p>
      </div>
      <div className="card">
        <h2>Import</h2>
        <p className="muted small">
          Choosing a file predicts what an import would do (it stores nothing); Apply then imports it.
          Sections your roles cannot write are skipped; role bindings are never imported; webhook endpoints
          are only updated.
        </p>
        <label htmlFor="bundle-file">Bundle file</label>
        <input
          id="bundle-file"
          type="file"
          accept="application/json,.json"
          onChange={(e) => void choose(e)}
        />
        {planError ? (
          <p className="form-error" role="alert" data-testid="plan-error">
            {planError}
          </p>
        ) : null}
        {chosen && !chosen.plan ? <p className="muted">Predicting {chosen.name}…</p> : null}
        {chosen?.plan ? (
          <>
            <h3 data-testid="plan-title">
              Predicted outcome of {chosen.name}
              {errors > 0 ? ` (${errors} ${errors === 1 ? "item" : "items"} would fail)` : ""}
            </h3>
            <ImportPlan report={chosen.plan} />
            <button type="button" className="primary" disabled={act.busy} onClick={() => apply(chosen)}>
              Apply
            </button>
          </>
        ) : null}
      </div>
      <ActionStatus error={act.error} notice={act.notice} />
      {applied ? (
        <div className="card" data-testid="applied">
          <h2>Applied</h2>
          <ImportPlan report={applied} />
        </div>
      ) : null}
    </div>
  );
}
