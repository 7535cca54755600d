/**
 * Settings: Users (local mode), API tokens, Role bindings, Webhooks, and the own password change. A section appears only
 * when the caller holds its permission (GET /api/v1/auth/me) and the console has what it needs.
 */
import { useQuery } from "@tanstack/react-query";
import { Link, useSearch } from "@tanstack/react-router";
import { can, configQuery, meQuery } from "../../api/queries.tsx";
import { useApp } from "../../context.tsx";
import { BindingsSection } from "./bindings.tsx";
import { ConfigurationSection } from "./configuration.tsx";
import { PasswordSection } from "./password.tsx";
import { TokensSection } from "./tokens.tsx";
import { UsersSection } from "./users.tsx";
import { WebhooksSection } from "./webhooks.tsx";

/** The Settings page with one tab per section the caller may use. */
export function SettingsPage() {
  const { api } = useApp();
  const config = useQuery(configQuery(api)).data;
  const me = useQuery(meQuery(api)).data;
  const { tab } = useSearch({ from: "/app/settings" });
  if (!config || !me) return <section className="page">Loading…</section>;
  const db = config.backends.database;
  const tabs: { id: string; label: string }[] = [];
  if (config.auth.mode === "local" && can(me, "users:manage")) tabs.push({ id: "users", label: "Users" });
  if (db && can(me, "tokens:manage")) tabs.push({ id: "tokens", label: "API tokens" });
  if (db && can(me, "rbac:manage")) tabs.push({ id: "bindings", label: "Role bindings" });
  if (db && can(me, "webhooks:manage")) tabs.push({ id: "webhooks", label: "Webhooks" });
  // export and import gate each section on its own permission: any caller holding a role may open the tab
  if (db && me.roles.length > 0) tabs.push({ id: "configuration", label: "Configuration" });
  if (me.via === "session" && me.subject.startsWith("local:"))
    tabs.push({ id: "password", label: "Password" });
  const current = tabs.find((t) => t.id === tab) ?? tabs[0];
  return (
    <section className="page">
      <h1>Settings</h1>
      {tabs.length === 0 ? (
        <div className="card">
          <p>Your roles ({me.roles.join(", ") || "none"}) grant no settings on this console.</p>
        </div>
      ) : (
        <>
          <nav className="tabs" aria-label="Settings sections">
            {tabs.map((t) => (
              <Link
                key={t.id}
                to="/settings"
                search={{ tab: t.id }}
                className={t.id === current?.id ? "tab active" : "tab"}
                aria-current={t.id === current?.id ? "page" : undefined}
              >
                {t.label}
              </Link>
            ))}
          </nav>
          {current?.id === "users" ? <UsersSection me={me} /> : null}
          {current?.id === "tokens" ? <TokensSection /> : null}
          {current?.id === "bindings" ? <BindingsSection /> : null}
          {current?.id === "webhooks" ? <WebhooksSection /> : null}
          {current?.id === "configuration" ? <ConfigurationSection /> : null}
          {current?.id === "password" ? <PasswordSection minLength={config.auth.passwordMinLength} /> : null}
        </>
      )}
    </section>
  );
}
