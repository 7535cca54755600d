/**
 * Webhook endpoints (spec §2.12, §6.3; webhooks:manage): the list with each endpoint's last delivery outcome and
 * failure streak; add one (url, events, signing secret: write-only, never shown again), enable/disable, send a
 * signed test, replace the secret, delete. A console without the encryption key answers 503 for anything needing
 * a secret: said plainly, with what to configure. Writes are hidden under the Time Machine.
 */
import * as c from "@svc/contract";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { ApiClient } from "../../api/client.tsx";
import { describeError } from "../../api/client.tsx";
import { ConfirmButton } from "../../components/confirm-button.tsx";
import { TableHead } from "../../components/table-head.tsx";
import { ActionStatus, useAction } from "../../components/use-action.tsx";
import { useApp } from "../../context.tsx";
import { useAt } from "../../shell/time-machine.tsx";
import { isNoKey, NO_KEY_TEXT, outcomeText } from "./webhook-form.ts";

/** GET /api/v1/webhooks (webhooks:manage). */
export const webhooksQuery = (api: ApiClient) =>
  queryOptions({
    queryKey: ["webhooks"],
    queryFn: async () => (await api.call(c.listWebhooks)).endpoints,
  });

/** The key-missing notice, or the error text of an action. */
function ErrorLine(p: { error: unknown }) {
  if (!p.error) return null;
  return isNoKey(p.error) ? (
    <p className="banner banner-warn" role="alert" data-testid="webhook-no-key">
      {NO_KEY_TEXT}
    </p>
  ) : (
    <p className="form-error" role="alert">
      {describeError(p.error)}
    </p>
  );
}

/** Runs an action, keeping the raw error so the 503 can be told apart. */
function useRawAction() {
  const act = useAction(["webhooks"]);
  const [raw, setRaw] = useState<unknown>(null);
  const run = (fn: () => Promise<unknown>, done?: string) =>
    act.run(async () => {
      setRaw(null);
      try {
        return await fn();
      } catch (e) {
        setRaw(e);
        throw e;
      }
    }, done);
  return { ...act, run, raw };
}

function NewEndpoint() {
  const { api } = useApp();
  const act = useRawAction();
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<c.WebhookEvent[]>(["alert.fired", "alert.resolved"]);
  const [secret, setSecret] = useState("");
  const toggle = (e: c.WebhookEvent, on: boolean) =>
    setEvents((xs) => (on ? [...xs.filter((x) => x !== e), e] : xs.filter((x) => x !== e)));
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const ordered = c.WEBHOOK_EVENTS.filter((x) => events.includes(x));
    const ok = await act.run(
      () => api.call(c.createWebhook, { body: { url, events: ordered, enabled: true, secret } }),
      `Endpoint ${url} added`,
    );
    setSecret(""); // never kept in the page once sent
    if (ok) setUrl("");
  };
  return (
    <form className="card grid-form" onSubmit={(e) => void submit(e)} aria-label="Add webhook endpoint">
      <h2>Add webhook endpoint</h2>
      <label>
        URL
        <input
          type="url"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          maxLength={2048}
          placeholder="https://hooks.example.com/svc"
          required
        />
      </label>
      <fieldset>
        <legend>Events</legend>
        {c.WEBHOOK_EVENTS.map((ev) => (
          <label key={ev} className="inline">
            <input
              type="checkbox"
              checked={events.includes(ev)}
              onChange={(e) => toggle(ev, e.target.checked)}
            />{" "}
            {ev}
          </label>
        ))}
      </fieldset>
      <label>
        Signing secret (at least 16 characters; write-only: it cannot be read back)
        <input
          type="password"
          autoComplete="new-password"
          value={secret}
          onChange={(e) => setSecret(e.target.value)}
          minLength={16}
          maxLength={512}
          required
        />
      </label>
      <button type="submit" className="primary" disabled={act.busy || events.length === 0}>
        Add endpoint
      </button>
      {act.raw ? <ErrorLine error={act.raw} /> : <ActionStatus error={act.error} notice={act.notice} />}
    </form>
  );
}

/** The Webhooks section of Settings. */
export function WebhooksSection() {
  const { api } = useApp();
  const past = useAt() !== undefined;
  const endpoints = useQuery(webhooksQuery(api));
  const act = useRawAction();
  const [lastTest, setLastTest] = useState<{ id: string; text: string } | null>(null);
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
      {past ? <p className="muted">Endpoints cannot be changed under the Time Machine.</p> : <NewEndpoint />}
    </div>
  );
}
