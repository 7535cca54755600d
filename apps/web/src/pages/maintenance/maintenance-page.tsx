/**
 * Maintenance windows (spec §3.4, §6.3 point 7): the list, newest start first, active ones marked; with
 * `incidents:write` (the operator's write grant for windows) add, edit and delete. An alert that starts firing
 * inside a matching window is held and delivered at the close only if still firing. Writes are hidden under the
 * Time Machine; "active" is judged at the instant it shows.
 */
import * as c from "@svc/contract";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { ApiClient } from "../../api/client.tsx";
import { describeError } from "../../api/client.tsx";
import { can, meQuery } from "../../api/queries.tsx";
import { ConfirmButton } from "../../components/confirm-button.tsx";
import { TableHead } from "../../components/table-head.tsx";
import { ActionStatus, useAction } from "../../components/use-action.tsx";
import { useApp } from "../../context.tsx";
import { useAt } from "../../shell/time-machine.tsx";
import { WindowEditor } from "./window-editor.tsx";
import { isActive, scopeWords } from "./window-form.ts";

/** GET /api/v1/maintenance-windows (maintenance:read). */
export const windowsQuery = (api: ApiClient) =>
  queryOptions({
    queryKey: ["maintenance-windows"],
    queryFn: async () => (await api.call(c.listMaintenanceWindows)).windows,
    refetchInterval: 60_000,
  });

function when(iso: string): string {
  return new Date(iso).toLocaleString();
}

/** The Maintenance page. */
export function MaintenancePage() {
  const { api } = useApp();
  const at = useAt();
  const me = useQuery(meQuery(api)).data;
  const canRead = can(me, "maintenance:read");
  const canWrite = can(me, "incidents:write") && at === undefined;
  const windows = useQuery({ ...windowsQuery(api), enabled: canRead });
  const act = useAction(["maintenance-windows"]);
  const [editing, setEditing] = useState<string | null>(null);
  const [fresh, setFresh] = useState(0);
  const list = windows.data ?? [];
  const edited = list.find((w) => w.id === editing);
  const now = at ? Date.parse(at) : Date.now();
  if (me && !canRead)
    return (
      <section className="page">
        <h1>Maintenance</h1>
        <p role="alert">You need the maintenance:read permission to see maintenance windows.</p>
      </section>
    );
  return (
    <section className="page">
      <h1>Maintenance</h1>
      <p className="muted">
        An alert that starts firing inside a matching window is held, and delivered when the window closes
        only if it still fires; resolves inside a window are not delivered.
      </p>
      {at ? (
        <p className="muted">Active as of {when(at)}; windows cannot be changed under the Time Machine.</p>
      ) : null}
      {windows.error ? <p role="alert">{describeError(windows.error)}</p> : null}
      <div className="table-wrap">
        <table className="table" aria-label="Maintenance windows">
          <TableHead
            columns={["Scope", "Starts", "Ends", "Reason", "Author", "State", canWrite && "Actions"]}
          />
          <tbody>
            {list.map((w) => {
              const active = isActive(w, now);
              const ended = Date.parse(w.endAt) <= now;
              return (
                <tr key={w.id} data-testid="window-row" data-active={active ? "true" : "false"}>
                  <th scope="row">{scopeWords(w)}</th>
                  <td>{when(w.startAt)}</td>
                  <td>{when(w.endAt)}</td>
                  <td>{w.reason}</td>
                  <td>{w.author}</td>
                  <td>
                    <span className={active ? "badge warn" : "badge off"} data-testid="window-state">
                      {active ? "active" : ended ? "ended" : "scheduled"}
                    </span>
                  </td>
                  {canWrite ? (
                    <td className="actions">
                      <button type="button" onClick={() => setEditing(w.id)} disabled={act.busy}>
                        Edit
                      </button>{" "}
                      <ConfirmButton
                        label="Delete"
                        confirmLabel={`Delete window on ${scopeWords(w)}`}
                        disabled={act.busy}
                        onConfirm={() =>
                          void act.run(
                            () => api.call(c.deleteMaintenanceWindow, { params: { id: w.id } }),
                            "Window deleted",
                          )
                        }
                      />
                    </td>
                  ) : null}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {windows.data && list.length === 0 ? <p>No maintenance windows.</p> : null}
      <ActionStatus error={act.error} notice={act.notice} />
      {canWrite ? (
        edited ? (
          <WindowEditor key={edited.id} window={edited} onDone={() => setEditing(null)} />
        ) : (
          <WindowEditor key={`new-${fresh}`} onDone={() => setFresh((n) => n + 1)} />
        )
      ) : null}
    </section>
  );
}
