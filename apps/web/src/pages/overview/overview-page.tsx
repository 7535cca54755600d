/**
 * Overview: the fleet summary (agents, missing agents, pairs monitored/failing per protocol, worst pairs), the open
 * incidents, what this console is connected to, and who you are.
 */
import { useQuery } from "@tanstack/react-query";
import { configQuery, meQuery } from "../../api/queries.tsx";
import { useApp } from "../../context.tsx";
import { FleetSummary } from "./fleet-summary.tsx";
import { IncidentCards } from "./incident-cards.tsx";

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
      <FleetSummary />
      <IncidentCards />
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
