/**
 * Targets (issue 21): the list, a form to add one (host[:port] or an http(s) URL), delete (refused with 409 while a
 * check definition uses it).
 */
import * as c from "@svc/contract";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { type FormEvent, useState } from "react";
import type { ApiClient } from "../../api/client.tsx";
import { describeError } from "../../api/client.tsx";
import { ConfirmButton } from "../../components/confirm-button.tsx";
import { ActionStatus, useAction } from "../../components/use-action.tsx";
import { useApp } from "../../context.tsx";

export const targetsQuery = (api: ApiClient) =>
  queryOptions({
    queryKey: ["targets"],
    queryFn: async () => (await api.call(c.listTargets, {})).targets,
  });

/** The Targets page. */
export function TargetsPage() {
  const { api } = useApp();
  const targets = useQuery(targetsQuery(api));
  const act = useAction(["targets"]);
  const [name, setName] = useState("");
  const [address, setAddress] = useState("");
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const ok = await act.run(
      () => api.call(c.createTarget, { body: { name, address } }),
      `Target ${name} added`,
    );
    if (ok) {
      setName("");
      setAddress("");
    }
  };
  return (
    <main id="main" className="page">
      <h1>Targets</h1>
      {targets.error ? <p role="alert">{describeError(targets.error)}</p> : null}
      <table className="table" aria-label="Targets">
        <thead>
          <tr>
            <th>Name</th>
            <th>Kind</th>
            <th>Address</th>
            <th>Port</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(targets.data ?? []).map((t) => (
            <tr key={t.id} data-testid="target-row">
              <td>
                <Link to="/targets/$id" params={{ id: t.id }}>
                  {t.name}
                </Link>
              </td>
              <td>{t.kind}</td>
              <td>{t.address}</td>
              <td>{t.port === 0 ? "default" : t.port}</td>
              <td>
                <ConfirmButton
                  label="Delete"
                  confirmLabel={`Delete ${t.name}`}
                  onConfirm={() => void act.run(() => api.call(c.deleteTarget, { params: { id: t.id } }))}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {targets.data?.length === 0 ? <p>No targets yet.</p> : null}
      <form className="card grid-form" onSubmit={(e) => void submit(e)} aria-label="Add target">
        <h2>Add target</h2>
        <label>
          Name
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={128} required />
        </label>
        <label>
          Address (host, host:port or http(s) URL)
          <input value={address} onChange={(e) => setAddress(e.target.value)} maxLength={2048} required />
        </label>
        <button type="submit" disabled={act.busy}>
          Add target
        </button>
        <ActionStatus error={act.error} notice={act.notice} />
      </form>
    </main>
  );
}
