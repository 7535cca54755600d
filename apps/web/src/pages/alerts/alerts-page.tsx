/**
 * Alerts (issue 22): the console's alert rules with their state now (GET /api/v1/alerts: firing and pending alerts
 * of each rule, as Prometheus holds them), whether the rules reached Prometheus, and the alerts themselves; with
 * `alerts:manage` the rule editor (Preview, create, edit) and enable/disable/delete. Writes are hidden under the
 * Time Machine: alert state is always now, and a rule changes Prometheus now.
 */
import * as c from "@svc/contract";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { describeError } from "../../api/client.tsx";
import { can, meQuery } from "../../api/queries.tsx";
import { ConfirmButton } from "../../components/confirm-button.tsx";
import { TableHead } from "../../components/table-head.tsx";
import { ActionStatus, useAction } from "../../components/use-action.tsx";
import { useApp } from "../../context.tsx";
import { useAt } from "../../shell/time-machine.tsx";
import { alertRulesQuery, currentAlertsQuery, ruleCounts, stateText, syncText } from "./alert-queries.ts";
import { RuleEditor } from "./rule-editor.tsx";

function inputOf(r: c.AlertRule, enabled: boolean): c.AlertRuleInput {
  return {
    name: r.name,
    expr: r.expr,
    forSeconds: r.forSeconds,
    labels: r.labels,
    annotations: r.annotations,
    description: r.description,
    enabled,
  };
}

/** The Alerts page. */
export function AlertsPage() {
  const { api } = useApp();
  const at = useAt();
  const me = useQuery(meQuery(api)).data;
  const canRead = can(me, "alerts:read");
  const canWrite = can(me, "alerts:manage") && at === undefined;
  const rules = useQuery({ ...alertRulesQuery(api), enabled: canRead });
  const current = useQuery({ ...currentAlertsQuery(api), enabled: canRead });
  const act = useAction(["alert-rules", "alerts"]);
  const [editing, setEditing] = useState<string | null>(null);
  const [fresh, setFresh] = useState(0);
  const alerts = current.data ?? [];
  const list = rules.data?.rules ?? [];
  const ruleName = (id: string) => list.find((r) => r.id === id)?.name ?? id;
  const edited = list.find((r) => r.id === editing);
  if (me && !canRead)
    return (
      <section className="page">
        <h1>Alerts</h1>
        <p role="alert">You need the alerts:read permission to see alert rules.</p>
      </section>
    );
  return (
    <section className="page">
      <h1>Alerts</h1>
      {at ? (
        <p className="muted">
          The Time Machine does not apply here: rules and alert states are shown as they are now, and cannot
          be changed while it is on.
        </p>
      ) : null}
      {rules.error ? <p role="alert">{describeError(rules.error)}</p> : null}
      {rules.data ? (
        <p className={rules.data.sync.state === "failed" ? "form-error" : "muted"} data-testid="rule-sync">
          {syncText(rules.data.sync)}
        </p>
      ) : null}
      {current.error ? (
        <p className="form-error" data-testid="alerts-error">
          Alert state unavailable: {describeError(current.error)}
        </p>
      ) : null}
      <div className="table-wrap">
        <table className="table" aria-label="Alert rules">
          <TableHead columns={["Name", "Expression", "For", "State", canWrite && "Actions"]} />
          <tbody>
            {list.map((r) => {
              const state = stateText(ruleCounts(alerts, r.id), r.enabled);
              return (
                <tr key={r.id} data-testid="rule-row" data-rule={r.name}>
                  <th scope="row">
                    {r.name}
                    <div className="muted small">{r.alertName}</div>
                  </th>
                  <td>
                    <code>{r.expr}</code>
                  </td>
                  <td>{r.forSeconds} s</td>
                  <td>
                    <span
                      className={
                        state.startsWith("firing") ? "badge warn" : state === "ok" ? "badge ok" : "badge off"
                      }
                      data-testid="rule-state"
                    >
                      {state}
                    </span>
                  </td>
                  {canWrite ? (
                    <td className="actions">
                      <button type="button" onClick={() => setEditing(r.id)} disabled={act.busy}>
                        Edit
                      </button>{" "}
                      <button
                        type="button"
                        disabled={act.busy}
                        onClick={() =>
                          void act.run(
                            () =>
                              api.call(c.updateAlertRule, {
                                params: { id: r.id },
                                body: inputOf(r, !r.enabled),
                              }),
                            `Rule ${r.name} ${r.enabled ? "disabled" : "enabled"}`,
                          )
                        }
                      >
                        {r.enabled ? "Disable" : "Enable"}
                      </button>{" "}
                      <ConfirmButton
                        label="Delete"
                        confirmLabel={`Delete ${r.name}`}
                        disabled={act.busy}
                        onConfirm={() =>
                          void act.run(
                            () => api.call(c.deleteAlertRule, { params: { id: r.id } }),
                            `Rule ${r.name} deleted`,
                          )
                        }
                      />
                    </td>
                  ) : null}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {rules.data && list.length === 0 ? <p>No alert rules yet.</p> : null}
      <ActionStatus error={act.error} notice={act.notice} />
      {canWrite ? (
        edited ? (
          <RuleEditor key={edited.id} rule={edited} onDone={() => setEditing(null)} />
        ) : (
          <RuleEditor key={`new-${fresh}`} onDone={() => setFresh((n) => n + 1)} />
        )
      ) : null}
      <h2>Alerts now</h2>
      <div className="table-wrap">
        <table className="table" aria-label="Current alerts">
          <TableHead columns={["Rule", "State", "Labels", "Active since", "Value"]} />
          <tbody>
            {alerts.map((a) => (
              <tr key={`${a.ruleId}:${JSON.stringify(a.labels)}`} data-testid="alert-row">
                <td>{ruleName(a.ruleId)}</td>
                <td>{a.state}</td>
                <td>
                  {Object.entries(a.labels)
                    .filter(([k]) => k !== "alertname" && k !== c.RULE_ID_LABEL)
                    .map(([k, v]) => `${k}=${v}`)
                    .join(", ")}
                </td>
                <td>{new Date(a.activeAt).toLocaleString()}</td>
                <td>{a.value ?? "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {current.data && alerts.length === 0 ? <p>Nothing pending or firing.</p> : null}
    </section>
  );
}
