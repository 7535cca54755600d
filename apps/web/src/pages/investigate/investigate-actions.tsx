/**
 * The Investigation page's actions (spec §4.5 "Actions"): Export JSON (committed parameters, every timeline row,
 * ranked causes with scores; file name from the window start, colons made filesystem-safe), Save as incident
 * (`incidents:write`; zone-pair and cluster scopes save as global), Create maintenance (a pair, node or target
 * scope holds that object's alerts; a zone pair or the cluster makes a fleet-wide window).
 */
import * as c from "@svc/contract";
import { useNavigate } from "@tanstack/react-router";
import { type FormEvent, useState } from "react";
import { ActionStatus, useAction } from "../../components/use-action.tsx";
import { useApp } from "../../context.tsx";
import type { Ranking } from "./causes.ts";
import { exportFileName, type Investigation, pairEnds } from "./params.ts";
import type { TimelineEntry } from "./timeline.ts";

/** The Export JSON document. */
export function exportDocument(
  i: Investigation,
  rows: readonly TimelineEntry[],
  ranking: Ranking,
  disclosures: readonly string[],
) {
  return {
    parameters: { kind: i.kind, scope: i.scope, from: i.from, to: i.to },
    onset: ranking.onset,
    causes: ranking.causes.map((x) => ({
      ...x.entry,
      weight: x.weight,
      deltaSeconds: x.deltaSeconds,
      score: x.score,
      label: x.label,
    })),
    timeline: rows,
    disclosures,
  };
}

function download(name: string, body: unknown) {
  const url = URL.createObjectURL(
    new Blob([`${JSON.stringify(body, null, 2)}\n`], { type: "application/json" }),
  );
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** The maintenance window body for a scope, from `start` for `hours`. */
export function maintenanceFor(
  i: Investigation,
  targetName: string | undefined,
  start: number,
  hours: number,
  reason: string,
): c.MaintenanceInput {
  const times = {
    startAt: new Date(start).toISOString(),
    endAt: new Date(start + hours * 3_600_000).toISOString(),
  };
  const base = { node: "", source: "", destination: "", target: "", reason, ...times };
  if (i.kind === "pair") {
    const [source, destination] = pairEnds(i.scope) ?? ["", ""];
    return { ...base, scope: "pair", source, destination };
  }
  if (i.kind === "node") return { ...base, scope: "node", node: i.scope };
  if (i.kind === "target") return { ...base, scope: "target", target: targetName ?? i.scope };
  return { ...base, scope: "fleet" };
}

export function InvestigateActions(p: {
  investigation: Investigation;
  rows: readonly TimelineEntry[];
  ranking: Ranking;
  disclosures: readonly string[];
  targetName?: string;
  canWrite: boolean;
  /** why writing is off (Time Machine, no database), shown instead of the forms */
  writeOff?: string;
}) {
  const { api } = useApp();
  const navigate = useNavigate();
  const act = useAction(["incidents", "maintenance-windows"]);
  const [title, setTitle] = useState("");
  const [hours, setHours] = useState("1");
  const i = p.investigation;
  const save = async (e: FormEvent) => {
    e.preventDefault();
    let id = "";
    const ok = await act.run(async () => {
      const inc = await api.call(c.createIncident, {
        body: {
          kind: i.kind,
          scope: i.scope,
          from: i.from,
          to: i.to,
          title: title.trim() || `Investigation of ${i.scope || "the cluster"}`,
          notes: "",
          pins: [],
        },
      });
      id = inc.id;
    }, "Incident saved.");
    if (ok && id) void navigate({ to: "/investigate", search: { incident: id } });
  };
  const maintain = async (e: FormEvent) => {
    e.preventDefault();
    const h = Number(hours);
    if (!Number.isFinite(h) || h <= 0 || h > 168) return;
    await act.run(
      () =>
        api.call(c.createMaintenanceWindow, {
          body: maintenanceFor(
            i,
            p.targetName,
            Date.now(),
            h,
            `from the investigation of ${i.kind} ${i.scope}`.trim(),
          ),
        }),
      "Maintenance window created.",
    );
  };
  return (
    <section className="card" aria-label="Actions">
      <h2>Actions</h2>
      <button
        type="button"
        onClick={() => download(exportFileName(i), exportDocument(i, p.rows, p.ranking, p.disclosures))}
      >
        Export JSON
      </button>
      {p.canWrite && !p.writeOff ? (
        <>
          <form onSubmit={save} aria-label="Save as incident">
            <label>
              Title{" "}
              <input
                value={title}
                maxLength={c.INCIDENT_TITLE_MAX}
                onChange={(e) => setTitle(e.target.value)}
              />
            </label>{" "}
            <button type="submit" disabled={act.busy}>
              Save as incident
            </button>
          </form>
          <form onSubmit={maintain} aria-label="Create maintenance">
            <label>
              Hours{" "}
              <input
                type="number"
                min={0.25}
                max={168}
                step={0.25}
                value={hours}
                onChange={(e) => setHours(e.target.value)}
              />
            </label>{" "}
            <button type="submit" disabled={act.busy}>
              Create maintenance
            </button>
          </form>
        </>
      ) : p.writeOff ? (
        <p className="muted">{p.writeOff}</p>
      ) : null}
      <ActionStatus error={act.error} notice={act.notice} />
    </section>
  );
}
