/**
 * API tokens (spec §3.3, §5.6; tokens:manage): create shows the value once, revoke an active token, delete a
 * revoked or spent one.
 */
import * as c from "@svc/contract";
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { tokensQuery } from "../../api/queries.tsx";
import type { MintedToken } from "../../api/types.tsx";
import { ConfirmButton } from "../../components/confirm-button.tsx";
import { TableHead } from "../../components/table-head.tsx";
import { ActionStatus, useAction } from "../../components/use-action.tsx";
import { useApp } from "../../context.tsx";

function when(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString() : "—";
}

/** The API tokens section. */
export function TokensSection() {
  const { api } = useApp();
  const tokens = useQuery(tokensQuery(api));
  const act = useAction(["tokens"]);
  const [name, setName] = useState("");
  const [days, setDays] = useState("90");
  const [minted, setMinted] = useState<MintedToken | null>(null);
  const create = async (e: FormEvent) => {
    e.preventDefault();
    const n = Number.parseInt(days, 10);
    const expiresAt =
      Number.isFinite(n) && n > 0 ? new Date(Date.now() + n * 86_400_000).toISOString() : null;
    await act.run(async () => {
      setMinted(await api.call(c.mintToken, { body: { name, expiresAt } }));
      setName("");
    });
  };
  return (
    <div className="section">
      <form className="card grid-form" onSubmit={(e) => void create(e)} aria-label="Create API token">
        <h2>Create API token</h2>
        <p className="muted small">A token holds the console's default role, whoever creates it.</p>
        <label htmlFor="token-name">Name</label>
        <input id="token-name" value={name} onChange={(e) => setName(e.target.value)} />
        <label htmlFor="token-days">Expires after (days, empty = never)</label>
        <input id="token-days" inputMode="numeric" value={days} onChange={(e) => setDays(e.target.value)} />
        <button type="submit" className="primary" disabled={act.busy || name.trim() === ""}>
          Create token
        </button>
      </form>
      {minted ? (
        <div className="card secret" role="status">
          <h2>Token {minted.name} created</h2>
          <p>Copy it now: it is shown this once and cannot be read back.</p>
          <code data-testid="minted-token">{minted.token}</code>
          <div>
            <button type="button" onClick={() => void navigator.clipboard?.writeText(minted.token)}>
              Copy
            </button>{" "}
            <button type="button" onClick={() => setMinted(null)}>
              Done
            </button>
          </div>
        </div>
      ) : null}
      <ActionStatus error={act.error} notice={act.notice} />
      {tokens.error ? <p className="form-error">{tokens.error.message}</p> : null}
      <div className="table-wrap">
        <table className="table" aria-label="API tokens">
          <TableHead columns={["Name", "Owner", "State", "Created", "Last used", "Expires", "Actions"]} />
          <tbody>
            {(tokens.data ?? []).map((t) => (
              <tr key={t.id} data-token={t.name}>
                <th scope="row">{t.name}</th>
                <td>{t.owner}</td>
                <td>
                  <span className={t.state === "active" ? "badge ok" : "badge off"}>{t.state}</span>
                </td>
                <td>{when(t.createdAt)}</td>
                <td>{when(t.lastUsedAt)}</td>
                <td>{when(t.expiresAt)}</td>
                <td className="actions">
                  {t.state === "active" ? (
                    <ConfirmButton
                      label="Revoke"
                      confirmLabel={`Confirm revoke ${t.name}`}
                      disabled={act.busy}
                      onConfirm={() =>
                        void act.run(
                          () => api.call(c.revokeToken, { params: { id: t.id } }),
                          `Token ${t.name} revoked.`,
                        )
                      }
                    />
                  ) : (
                    <ConfirmButton
                      label="Delete"
                      confirmLabel={`Confirm delete ${t.name}`}
                      disabled={act.busy}
                      onConfirm={() =>
                        void act.run(
                          () => api.call(c.deleteToken, { params: { id: t.id } }),
                          `Token ${t.name} deleted.`,
                        )
                      }
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
