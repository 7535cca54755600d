/**
 * Role bindings (spec §5.3; rbac:manage): bindings made through the API (add, remove) and the configured
 * `groupRoles`, which the API cannot revoke and are shown read-only.
 */
import * as c from "@svc/contract";
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { BUILTIN_ROLES, bindingsQuery, rolesQuery } from "../../api/queries.tsx";
import { ConfirmButton } from "../../components/confirm-button.tsx";
import { TableHead } from "../../components/table-head.tsx";
import { ActionStatus, useAction } from "../../components/use-action.tsx";
import { useApp } from "../../context.tsx";

/** The Role bindings section. */
export function BindingsSection() {
  const { api } = useApp();
  const data = useQuery(bindingsQuery(api));
  const roles = useQuery(rolesQuery(api));
  const act = useAction(["bindings", "users", "me"]);
  const [subject, setSubject] = useState("");
  const [role, setRole] = useState("viewer");
  const roleNames = [...BUILTIN_ROLES, ...(roles.data?.custom.map((r) => r.name) ?? [])];
  const add = async (e: FormEvent) => {
    e.preventDefault();
    const ok = await act.run(
      () => api.call(c.createBinding, { body: { subject: subject.trim(), role } }),
      `${subject.trim()} now holds ${role}.`,
    );
    if (ok) setSubject("");
  };
  const groupRoles = Object.entries(data.data?.groupRoles ?? {});
  return (
    <div className="section">
      <form className="card grid-form" onSubmit={(e) => void add(e)} aria-label="Add role binding">
        <h2>Add role binding</h2>
        <label htmlFor="binding-subject">
          Subject (identity string such as oidc:…, local:…, or group:name)
        </label>
        <input id="binding-subject" value={subject} onChange={(e) => setSubject(e.target.value)} />
        <label htmlFor="binding-role">Role</label>
        <select id="binding-role" value={role} onChange={(e) => setRole(e.target.value)}>
          {roleNames.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
        <button type="submit" className="primary" disabled={act.busy || subject.trim() === ""}>
          Add binding
        </button>
      </form>
      <ActionStatus error={act.error} notice={act.notice} />
      {data.error ? <p className="form-error">{data.error.message}</p> : null}
      <div className="table-wrap">
        <table className="table" aria-label="Role bindings">
          <TableHead columns={["Subject", "Role", "Kind", "Actions"]} />
          <tbody>
            {(data.data?.bindings ?? []).map((b) => (
              <tr key={b.id}>
                <th scope="row">{b.subject}</th>
                <td>{b.role}</td>
                <td>{b.direct ? "user's direct role" : "binding"}</td>
                <td className="actions">
                  <ConfirmButton
                    label="Remove"
                    confirmLabel="Confirm remove"
                    disabled={act.busy}
                    onConfirm={() =>
                      void act.run(
                        () => api.call(c.deleteBinding, { params: { id: b.id } }),
                        `Binding of ${b.subject} removed.`,
                      )
                    }
                  />
                </td>
              </tr>
            ))}
            {groupRoles.map(([group, r]) => (
              <tr key={`g:${group}`}>
                <th scope="row">group:{group}</th>
                <td>{r}</td>
                <td>groupRoles (configuration)</td>
                <td className="muted">set in configuration</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
