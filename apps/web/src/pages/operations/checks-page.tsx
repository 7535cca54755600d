/**
 * Check definitions (issue 21): the list (optionally of one target), and an editor whose live projection shows
 * which agents would run the draft as it is typed (POST /api/v1/checks/projection: stores nothing).
 */
import * as c from "@svc/contract";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { type FormEvent, useEffect, useState } from "react";
import type { ApiClient } from "../../api/client.tsx";
import { describeError } from "../../api/client.tsx";
import { ConfirmButton } from "../../components/confirm-button.tsx";
import { ActionStatus, useAction } from "../../components/use-action.tsx";
import { useApp } from "../../context.tsx";
import { targetsQuery } from "./targets-page.tsx";

export const checksQuery = (api: ApiClient) =>
  queryOptions({
    queryKey: ["checks"],
    queryFn: async () => (await api.call(c.listChecks, { query: {} })).checks,
  });

const list = (s: string) =>
  s
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x !== "");

/** A value that follows `v` once it stopped changing for `ms`. */
function useSettled<T>(v: T, ms: number): T {
  const [settled, setSettled] = useState(v);
  useEffect(() => {
    const t = setTimeout(() => setSettled(v), ms);
    return () => clearTimeout(t);
  }, [v, ms]);
  return settled;
}

/** The definition body of a stored definition (what PUT takes). */
export function inputOf(d: c.CheckDefinition): c.CheckInput {
  return {
    name: d.name,
    targetId: d.targetId,
    type: d.type,
    params: d.params,
    sources: d.sources,
    intervalSeconds: d.intervalSeconds,
    timeoutSeconds: d.timeoutSeconds,
    enabled: d.enabled,
  };
}

/**
 * The editor of a new definition, or of `editing` (its fields start from the stored ones; parameters the form does
 * not show are kept), with its live projection.
 */
function CheckEditor(p: { editing?: c.CheckDefinition; onDone?: () => void }) {
  const { api } = useApp();
  const targets = useQuery(targetsQuery(api));
  const act = useAction(["checks"]);
  const e = p.editing;
  const [name, setName] = useState(e?.name ?? "");
  const [targetId, setTargetId] = useState(e?.targetId ?? "");
  const [type, setType] = useState<c.CheckType>(e?.type ?? "tcp");
  const [nodes, setNodes] = useState(e?.sources.nodes.join(", ") ?? "");
  const [zones, setZones] = useState(e?.sources.zones.join(", ") ?? "");
  const storedQuery = e && Object.hasOwn(e.params, "query") ? e.params.query : undefined;
  const [query, setQuery] = useState(typeof storedQuery === "string" ? storedQuery : "");
  const [interval, setInterval] = useState(String(e?.intervalSeconds ?? 30));
  const [enabled, setEnabled] = useState(e?.enabled ?? true);
  const chosen = targetId || targets.data?.[0]?.id || "";
  const draft: c.CheckInput = {
    name: name || "draft",
    targetId: chosen,
    type,
    params: type === "dns" && query ? { ...(e?.params ?? {}), query } : type === e?.type ? e.params : {},
    sources: { nodes: list(nodes), zones: list(zones) },
    intervalSeconds: Number(interval) || 30,
    timeoutSeconds: e?.timeoutSeconds ?? 5,
    enabled,
  };
  const settled = useSettled(JSON.stringify(draft), 300);
  const projection = useQuery({
    queryKey: ["check-projection", settled],
    queryFn: () => api.call(c.projectCheck, { body: JSON.parse(settled) as c.CheckInput }),
    enabled: chosen !== "",
  });
  const submit = async (ev: FormEvent) => {
    ev.preventDefault();
    const ok = await act.run(
      () =>
        e
          ? api.call(c.updateCheck, { params: { id: e.id }, body: { ...draft, name } })
          : api.call(c.createCheck, { body: { ...draft, name } }),
      `Check ${name} saved`,
    );
    if (ok && !e) setName("");
    if (ok) p.onDone?.();
  };
  const proj = projection.data;
  const title = e ? `Edit check ${e.name}` : "New check";
  return (
    <form className="card grid-form" onSubmit={(ev) => void submit(ev)} aria-label={title}>
      <h2>{title}</h2>
      <label>
        Name
        <input value={name} onChange={(e) => setName(e.target.value)} maxLength={128} required />
      </label>
      <label>
        Target
        <select value={chosen} onChange={(e) => setTargetId(e.target.value)}>
          {(targets.data ?? []).map((t) => (
            <option key={t.id} value={t.id}>
              {t.name} ({t.address})
            </option>
          ))}
        </select>
      </label>
      <label>
        Type
        <select value={type} onChange={(e) => setType(e.target.value as c.CheckType)}>
          {c.CHECK_TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </label>
      {type === "dns" ? (
        <label>
          Query (name asked of the target resolver)
          <input value={query} onChange={(e) => setQuery(e.target.value)} />
        </label>
      ) : null}
      <label>
        Source nodes (comma-separated; empty with no zones = every agent)
        <input value={nodes} onChange={(e) => setNodes(e.target.value)} />
      </label>
      <label>
        Source zones (comma-separated)
        <input value={zones} onChange={(e) => setZones(e.target.value)} />
      </label>
      <label>
        Interval (seconds)
        <input
          type="number"
          min={1}
          max={3600}
          value={interval}
          onChange={(e) => setInterval(e.target.value)}
        />
      </label>
      <label className="inline">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Enabled
      </label>
      <section aria-label="Projection" data-testid="projection">
        <h3>Would run on</h3>
        {projection.error ? <p role="alert">{describeError(projection.error)}</p> : null}
        {proj ? (
          proj.runnable ? (
            <p data-testid="projection-agents">{proj.agents.map((a) => a.nodeName).join(", ")}</p>
          ) : (
            <p data-testid="projection-none">No agent could run it</p>
          )
        ) : (
          <p>{chosen === "" ? "Add a target first." : "…"}</p>
        )}
        {proj && proj.reasons.length > 0 ? (
          <ul>
            {proj.reasons.map((r) => (
              <li key={r}>{r}</li>
            ))}
          </ul>
        ) : null}
      </section>
      <button type="submit" disabled={act.busy || chosen === ""}>
        Save check
      </button>
      {e ? (
        <button type="button" onClick={() => p.onDone?.()}>
          Cancel
        </button>
      ) : null}
      <ActionStatus error={act.error} notice={act.notice} />
    </form>
  );
}

/** The Checks page. */
export function ChecksPage() {
  const { api } = useApp();
  const checks = useQuery(checksQuery(api));
  const targets = useQuery(targetsQuery(api));
  const act = useAction(["checks"]);
  const [editing, setEditing] = useState<string | null>(null);
  const edited = checks.data?.find((d) => d.id === editing);
  const targetName = (id: string) => targets.data?.find((t) => t.id === id)?.name ?? id;
  return (
    <main id="main" className="page">
      <h1>Checks</h1>
      {checks.error ? <p role="alert">{describeError(checks.error)}</p> : null}
      <table className="table" aria-label="Checks">
        <thead>
          <tr>
            <th>Name</th>
            <th>Type</th>
            <th>Target</th>
            <th>Sources</th>
            <th>Every</th>
            <th>Enabled</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(checks.data ?? []).map((d) => (
            <tr key={d.id} data-testid="check-row">
              <td>{d.name}</td>
              <td>{d.type}</td>
              <td>{targetName(d.targetId)}</td>
              <td>{[...d.sources.nodes, ...d.sources.zones].join(", ") || "every agent"}</td>
              <td>{d.intervalSeconds} s</td>
              <td>{d.enabled ? "yes" : "no"}</td>
              <td>
                <button
                  type="button"
                  disabled={act.busy}
                  onClick={() =>
                    void act.run(() =>
                      api.call(c.updateCheck, {
                        params: { id: d.id },
                        body: { ...inputOf(d), enabled: !d.enabled },
                      }),
                    )
                  }
                >
                  {d.enabled ? "Disable" : "Enable"}
                </button>{" "}
                <button type="button" disabled={act.busy} onClick={() => setEditing(d.id)}>
                  Edit
                </button>{" "}
                <ConfirmButton
                  label="Delete"
                  confirmLabel={`Delete ${d.name}`}
                  onConfirm={() => void act.run(() => api.call(c.deleteCheck, { params: { id: d.id } }))}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ActionStatus error={act.error} notice={act.notice} />
      {edited ? (
        <CheckEditor key={edited.id} editing={edited} onDone={() => setEditing(null)} />
      ) : (
        <CheckEditor />
      )}
    </main>
  );
}
