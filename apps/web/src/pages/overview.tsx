/**
 * Overview (first slice): who you are, what this console is connected to. The fleet summary needs the metrics
 * server and the controller APIs of a later slice.
 */
import { useQuery } from "@tanstack/react-query";
import { configQuery, meQuery } from "../api/queries.tsx";
import { useApp } from "../context.tsx";

function yesNo(b: boolean, yes: string, no: string) {
  return <span className={b ? "ok" : "warn"}>{b ? yes : no}</span>;
}

/** The Overview page. */
export function OverviewPage() {
  const { api } = useApp();
  const config = useQuery(configQuery(api)).data;
  const me = useQuery(meQuery(api)).data;
  return (
    <section className="page">
      <h1>Overview</h1>
      <div className="card">
        <h2>Fleet summary</h2>
        <p>
          <strong>Not built yet.</strong> Agents, missing agents and pairs monitored or failing per protocol
          need the metrics server and controller queries of a later release.
        </p>
      </div>
      {config ? (
        <div className="card">
          <h2>Backends</h2>
          <dl className="facts">
            <dt>Sign-in</dt>
            <dd>{config.auth.mode}</dd>
            <dt>Database</dt>
            <dd>
              {yesNo(config.backends.database, config.backends.databaseKind ?? "yes", "none (in memory)")}
            </dd>
            <dt>Metrics server</dt>
            <dd>{yesNo(config.backends.prometheus, "configured", "not configured")}</dd>
            <dt>Controller</dt>
            <dd>{yesNo(config.backends.controller, "configured", "not configured")}</dd>
            <dt>Shared store</dt>
            <dd>{config.backends.redis ? "Redis" : "in process"}</dd>
          </dl>
        </div>
      ) : null}
      {me ? (
        <div className="card">
          <h2>You</h2>
          <p>
            {me.displayName || me.subject} · roles: {me.roles.join(", ") || "none"}
          </p>
        </div>
      ) : null}
    </section>
  );
}
