/**
 * Users (spec §3.2, §5.5; local mode, users:manage): create, disable, enable, delete with a second-press confirm,
 * role change (confirmed when it is one's own), reset password. Custom roles are offered only with rbac:manage.
 */
import * as c from "@svc/contract";
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { BUILTIN_ROLES, can, rolesQuery, usersQuery } from "../../api/queries.tsx";
import type { MeView, UserView } from "../../api/types.tsx";
import { ConfirmButton } from "../../components/confirm-button.tsx";
import { TableHead } from "../../components/table-head.tsx";
import { ActionStatus, useAction } from "../../components/use-action.tsx";
import { useApp } from "../../context.tsx";

type Act = ReturnType<typeof useAction>;

function RoleSelect(p: {
  id: string;
  label: string;
  value: string;
  roles: string[];
  onChange: (v: string) => void;
}) {
  return (
    <select id={p.id} aria-label={p.label} value={p.value} onChange={(e) => p.onChange(e.target.value)}>
      {p.roles.map((r) => (
        <option key={r} value={r}>
          {r}
        </option>
      ))}
    </select>
  );
}

function UserRow(p: { u: UserView; own: boolean; roles: string[]; act: Act }) {
  const { api } = useApp();
  const { u, act } = p;
  const [role, setRole] = useState(u.role || "viewer");
  const [resetting, setResetting] = useState(false);
  const [pw, setPw] = useState("");
  const params = { id: u.id };
  const setRoleNow = () =>
    void act.run(
      () => api.call(c.setUserRole, { params, body: { role } }),
      `${u.username} now holds ${role}.`,
    );
  return (
    <tr data-user={u.username}>
      <th scope="row">
        {u.username}
        {p.own ? <span className="muted"> (you)</span> : null}
      </th>
      <td>
        <span className={u.enabled ? "badge ok" : "badge off"}>{u.enabled ? "Enabled" : "Disabled"}</span>
      </td>
      <td className="role-cell">
        <RoleSelect
          id={`role-${u.id}`}
          label={`Role of ${u.username}`}
          value={role}
          roles={p.roles}
          onChange={setRole}
        />
        {p.own ? (
          <ConfirmButton
            label="Change role"
            confirmLabel="Confirm: change your own role"
            disabled={act.busy || role === u.role}
            onConfirm={setRoleNow}
          />
        ) : (
          <button type="button" disabled={act.busy || role === u.role} onClick={setRoleNow}>
            Change role
          </button>
        )}
      </td>
      <td className="actions">
        {u.enabled ? (
          <button
            type="button"
            disabled={act.busy}
            onClick={() => void act.run(() => api.call(c.disableUser, { params }), `${u.username} disabled.`)}
          >
            Disable
          </button>
        ) : (
          <button
            type="button"
            disabled={act.busy}
            onClick={() => void act.run(() => api.call(c.enableUser, { params }), `${u.username} enabled.`)}
          >
            Enable
          </button>
        )}
        <button
          type="button"
          disabled={act.busy}
          aria-expanded={resetting}
          onClick={() => setResetting(!resetting)}
        >
          Reset password
        </button>
        <ConfirmButton
          label="Delete"
          confirmLabel={`Confirm delete ${u.username}`}
          disabled={act.busy}
          onConfirm={() => void act.run(() => api.call(c.deleteUser, { params }), `${u.username} deleted.`)}
        />
        {resetting ? (
          <form
            className="inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              void act
                .run(
                  () => api.call(c.resetUserPassword, { params, body: { password: pw } }),
                  `Password of ${u.username} reset.`,
                )
                .then((ok) => {
                  if (!ok) return;
                  setPw("");
                  setResetting(false);
                });
            }}
          >
            <label htmlFor={`pw-${u.id}`}>New password for {u.username}</label>
            <input
              id={`pw-${u.id}`}
              type="password"
              autoComplete="new-password"
              value={pw}
              onChange={(e) => setPw(e.target.value)}
            />
            <button type="submit" disabled={act.busy || pw === ""}>
              Set password
            </button>
          </form>
        ) : null}
      </td>
    </tr>
  );
}

function CreateUser(p: { roles: string[]; act: Act }) {
  const { api } = useApp();
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [role, setRole] = useState("viewer");
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const ok = await p.act.run(
      () => api.call(c.createUser, { body: { username, password, role } }),
      `User ${username} created.`,
    );
    if (ok) {
      setUsername("");
      setPassword("");
    }
  };
  return (
    <form className="card grid-form" onSubmit={(e) => void submit(e)} aria-label="Create user">
      <h2>Create user</h2>
      <label htmlFor="new-username">Username</label>
      <input
        id="new-username"
        autoComplete="off"
        value={username}
        onChange={(e) => setUsername(e.target.value)}
      />
      <label htmlFor="new-password">Password (at least 12 characters)</label>
      <input
        id="new-password"
        type="password"
        autoComplete="new-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      <label htmlFor="new-role">Role</label>
      <RoleSelect id="new-role" label="Role" value={role} roles={p.roles} onChange={setRole} />
      <button type="submit" className="primary" disabled={p.act.busy || username === "" || password === ""}>
        Create user
      </button>
    </form>
  );
}

/** The Users section. */
export function UsersSection(p: { me: MeView }) {
  const { api } = useApp();
  const users = useQuery(usersQuery(api));
  const mayRbac = can(p.me, "rbac:manage");
  const roles = useQuery({ ...rolesQuery(api), enabled: mayRbac });
  const act = useAction(["users", "me", "bindings"]);
  const roleNames = [...BUILTIN_ROLES, ...(mayRbac ? (roles.data?.custom.map((r) => r.name) ?? []) : [])];
  return (
    <div className="section">
      <CreateUser roles={roleNames} act={act} />
      <ActionStatus error={act.error} notice={act.notice} />
      {users.error ? <p className="form-error">{String(users.error.message)}</p> : null}
      <div className="table-wrap">
        <table className="table" aria-label="Users">
          <TableHead columns={["Username", "Status", "Role", "Actions"]} />
          <tbody>
            {(users.data ?? []).map((u) => (
              <UserRow
                key={`${u.id}:${u.role}`}
                u={u}
                own={p.me.subject === `local:${u.id}`}
                roles={roleNames}
                act={act}
              />
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
