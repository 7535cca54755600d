/** Schedules (issue 21): state, next/last run, last failure; a form to schedule a definition; pause/delete. */
import * as c from "@svc/contract";
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { describeError } from "../../api/client.tsx";
import { ConfirmButton } from "../../components/confirm-button.tsx";
import { ActionStatus, useAction } from "../../components/use-action.tsx";
import { useApp } from "../../context.tsx";
import { checksQuery } from "./checks-page.tsx";

const when = (s: string | null) => (s ? new Date(s).toLocaleString() : "—");

/** The Schedules page. */
export function SchedulesPage() {
  const { api } = useApp();
  const schedules = useQuery({
    queryKey: ["schedules"],
    queryFn: async () => (await api.call(c.listSchedules, {})).schedules,
    refetchInterval: 15_000,
  });
  const checks = useQuery(checksQuery(api));
  const act = useAction(["schedules"]);
  const [name, setName] = useState("");
  const [definitionId, setDefinitionId] = useState("");
  const [kind, setKind] = useState<"check" | "mtr">("check");
  const [interval, setInterval] = useState("300");
  const chosen = definitionId || checks.data?.[0]?.id || "";
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    await act.run(
      () =>
        api.call(c.createSchedule, {
          body: { name, definitionId: chosen, kind, intervalSeconds: Number(interval) || 300, enabled: true },
        }),
      `Schedule ${name} saved`,
    );
  };
  const defName = (id: string) => checks.data?.find((d) => d.id === id)?.name ?? id;
  return (
    <main id="main" className="page">
      <h1>Schedules</h1>
      {schedules.error ? <p role="alert">{describeError(schedules.error)}</p> : null}
      <table className="table" aria-label="Schedules">
        <thead>
          <tr>
            <th>Name</th>
            <th>Check</th>
            <th>Kind</th>
            <th>Every</th>
            <th>State</th>
            <th>Last run</th>
            <th>Next run</th>
            <th>Last failure</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(schedules.data ?? []).map((s) => (
            <tr key={s.id} data-testid="schedule-row">
              <td>{s.name}</td>
              <td>{defName(s.definitionId)}</td>
              <td>{s.kind}</td>
              <td>{s.intervalSeconds} s</td>
              <td>{s.state}</td>
              <td>{when(s.lastRunAt)}</td>
              <td>{when(s.nextRunAt)}</td>
              <td>{s.lastFailure ? `${s.lastFailure} (${when(s.lastFailureAt)})` : ""}</td>
              <td>
                <button
                  type="button"
                  onClick={() =>
                    void act.run(() =>
                      api.call(c.updateSchedule, {
                        params: { id: s.id },
                        body: {
                          name: s.name,
                          definitionId: s.definitionId,
                          kind: s.kind,
                          intervalSeconds: s.intervalSeconds,
                          enabled: !s.enabled,
                        },
                      }),
                    )
                  }
                >
                  {s.enabled ? "Pause" : "Resume"}
                </button>
                <ConfirmButton
                  label="Delete"
                  confirmLabel={`Delete ${s.name}`}
                  onConfirm={() => void act.run(() => api.call(c.deleteSchedule, { params: { id: s.id } }))}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form className="card grid-form" onSubmit={(e) => void submit(e)} aria-label="New schedule">
        <h2>New schedule</h2>
        <label>
          Name
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={128} required />
        </label>
        <label>
          Check
          <select value={chosen} onChange={(e) => setDefinitionId(e.target.value)}>
            {(checks.data ?? []).map((d) => (
              <option key={d.id} value={d.id}>
                {d.name} ({d.type})
              </option>
            ))}
          </select>
        </label>
        <label>
          Kind
          <select value={kind} onChange={(e) => setKind(e.target.value as "check" | "mtr")}>
            <option value="check">check (the definition's type: tcp or icmp)</option>
            <option value="mtr">mtr (trace to the target)</option>
          </select>
        </label>
        <label>
          Every (seconds, 60-86400)
          <input
            type="number"
            min={60}
            max={86_400}
            value={interval}
            onChange={(e) => setInterval(e.target.value)}
          />
        </label>
        <button type="submit" disabled={act.busy || chosen === ""}>
          Save schedule
        </button>
        <ActionStatus error={act.error} notice={act.notice} />
      </form>
    </main>
  );
}
