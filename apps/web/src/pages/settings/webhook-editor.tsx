/**
 * The webhook endpoint form: add one (url, events, signing secret) or edit one (url, events, enabled; a new secret
 * replaces the stored one, empty keeps it). The secret is a password field, cleared once sent, never read back.
 */
import * as c from "@svc/contract";
import { type FormEvent, useState } from "react";
import { ActionStatus } from "../../components/use-action.tsx";
import { useApp } from "../../context.tsx";
import { ErrorLine, useRawAction } from "./webhook-status.tsx";

/** Adds an endpoint, or edits `endpoint`. */
export function WebhookEditor(p: { endpoint?: c.WebhookEndpoint; onDone: () => void }) {
  const { api } = useApp();
  const act = useRawAction();
  const ep = p.endpoint;
  const [url, setUrl] = useState(ep?.url ?? "");
  const [events, setEvents] = useState<c.WebhookEvent[]>(ep?.events ?? ["alert.fired", "alert.resolved"]);
  const [enabled, setEnabled] = useState(ep?.enabled ?? true);
  const [secret, setSecret] = useState("");
  const toggle = (e: c.WebhookEvent, on: boolean) =>
    setEvents((xs) => (on ? [...xs.filter((x) => x !== e), e] : xs.filter((x) => x !== e)));
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const ordered = c.WEBHOOK_EVENTS.filter((x) => events.includes(x));
    const ok = await act.run(
      () =>
        ep
          ? api.call(c.updateWebhook, {
              params: { id: ep.id },
              body: { url, events: ordered, enabled, ...(secret !== "" ? { secret } : {}) },
            })
          : api.call(c.createWebhook, { body: { url, events: ordered, enabled, secret } }),
      ep ? `Endpoint ${url} saved` : `Endpoint ${url} added`,
    );
    setSecret(""); // never kept in the page once sent
    if (ok) {
      setUrl("");
      p.onDone();
    }
  };
  const name = ep ? "Edit webhook endpoint" : "Add webhook endpoint";
  return (
    <form className="card grid-form" onSubmit={(e) => void submit(e)} aria-label={name}>
      <h2>{name}</h2>
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
      {ep ? (
        <label className="inline">
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Enabled
        </label>
      ) : null}
      <label>
        {ep
          ? "New signing secret (empty keeps the stored one; at least 16 characters)"
          : "Signing secret (at least 16 characters; write-only: it cannot be read back)"}
        <input
          type="password"
          autoComplete="new-password"
          value={secret}
          onChange={(e) => setSecret(e.target.value)}
          minLength={16}
          maxLength={512}
          required={!ep}
        />
      </label>
      <div className="actions">
        <button type="submit" className="primary" disabled={act.busy || events.length === 0}>
          {ep ? "Save endpoint" : "Add endpoint"}
        </button>{" "}
        {ep ? (
          <button type="button" onClick={p.onDone}>
            Cancel
          </button>
        ) : null}
      </div>
      {act.raw ? <ErrorLine error={act.raw} /> : <ActionStatus error={act.error} notice={act.notice} />}
    </form>
  );
}
