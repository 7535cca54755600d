/**
 * Webhook endpoints (spec §2.12, §6.3; webhooks:manage): the list with each endpoint's last delivery outcome and
 * failure streak; add one (url, events, signing secret: write-only, never shown again), edit one (a new secret
 * replaces the stored one), enable/disable, send a signed test, delete. A console without the encryption key answers 503 for anything needing
 * a secret: said plainly, with what to configure. Writes are hidden under the Time Machine.
 */
import * as c from "@svc/contract";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { ApiClient } from "../../api/client.tsx";
import { ConfirmButton } from "../../components/confirm-button.tsx";
import { TableHead } from "../../components/table-head.tsx";
import { ActionStatus } from "../../components/use-action.tsx";
import { useApp } from "../../context.tsx";
import { useAt } from "../../shell/time-machine.tsx";
import { WebhookEditor } from "./webhook-editor.tsx";
import { outcomeText } from "./webhook-form.ts";
import { ErrorLine, useRawAction } from "./webhook-status.tsx";

/** GET /api/v1/webhooks (webhooks:manage). */
export const webhooksQuery = (api: ApiClient) =>
  queryOptions({
    queryKey: ["webhooks"],
    queryFn: async () => (await api.call(c.listWebhooks)).endpoints,
  });

/** The Webhooks section of Settings. */
export function WebhooksSection() {
  const { api } = useApp();
  const past = useAt() !== undefined;
  const endpoints = useQuery(webhooksQuery(api));
  const act = useRawAction();
  const [lastTest, setLastTest] = useState<{ id: string; text: string } | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [fresh, setFresh] = useState(0);
  const edited = endpoints.data?.find((w) => w.id === editing);
  const update = (w: c.WebhookEndpoint, enabled: boolean) =>
    act.run(
      () =>
        api.call(c.updateWebhook, { params: { id: w.id }, body: { url: w.url, events: w.events, enabled } }),
      `${w.url} ${enabled ? "enabled" : "disabled"}`,
    );
  const test = (w: c.WebhookEndpoint) =>
    act.run(async () => {
      const o = await api.call(c.testWebhook, { params: { id: w.id } });
      setLastTest({
        id: w.id,
        text: o.ok ? `Test delivered (HTTP ${o.status ?? "?"})` : `Test failed: ${o.error ?? "no answer"}`,
      });
    });
  return (
    <div className="section">
      <p className="muted small">
        Deliveries are POSTs signed with X-Svc-Signature: sha256=HMAC of the raw body with the endpoint's
        secret; three attempts (at once, ~30 s, ~5 min).
      </p>
      {endpoints.error ? <ErrorLine error={endpoints.error} /> : null}
      <div className="table-wrap">
        <table className="table" aria-label="Webhook endpoints">
          <TableHead
            columns={["URL", "Events", "Enabled", "Last outcome", "Failure streak", !past && "Actions"]}
          />
          <tbody>
            {(endpoints.data ?? []).map((w) => (
              <tr key={w.id} data-testid="webhook-row" data-url={w.url}>
                <th scope="row">{w.url}</th>
                <td>{w.events.join(", ")}</td>
                <td>
                  <span className={w.enabled ? "badge ok" : "badge off"}>
                    {w.enabled ? "enabled" : "disabled"}
                  </span>
                </td>
                <td data-testid="webhook-outcome">
                  {outcomeText(w.lastOutcome)}
                  {lastTest?.id === w.id ? (
                    <div role="status" data-testid="webhook-test-result">
                      {lastTest.text}
                    </div>
                  ) : null}
                </td>
                <td data-testid="webhook-streak">{w.failureStreak}</td>
                {!past ? (
                  <td className="actions">
                    <button type="button" disabled={act.busy} onClick={() => setEditing(w.id)}>
                      Edit
                    </button>{" "}
                    <button type="button" disabled={act.busy} onClick={() => void update(w, !w.enabled)}>
                      {w.enabled ? "Disable" : "Enable"}
                    </button>{" "}
                    <button type="button" disabled={act.busy} onClick={() => void test(w)}>
                      Send test
                    </button>{" "}
                    <ConfirmButton
                      label="Delete"
                      confirmLabel={`Delete ${w.url}`}
                      disabled={act.busy}
                      onConfirm={() =>
                        void act.run(
                          () => api.call(c.deleteWebhook, { params: { id: w.id } }),
                          `${w.url} deleted`,
                        )
                      }
                    />
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {endpoints.data?.length === 0 ? <p>No webhook endpoints yet.</p> : null}
      {act.raw ? <ErrorLine error={act.raw} /> : <ActionStatus error={act.error} notice={act.notice} />}
      {past ? (
        <p className="muted">Endpoints cannot be changed under the Time Machine.</p>
      ) : edited ? (
        <WebhookEditor key={edited.id} endpoint={edited} onDone={() => setEditing(null)} />
      ) : (
        <WebhookEditor key={`new-${fresh}`} onDone={() => setFresh((n) => n + 1)} />
      )}
    </div>
  );
}
