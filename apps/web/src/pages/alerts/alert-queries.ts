/** Queries of the Alerts page: the rules with their sync state, and the alerts Prometheus holds now. */
import * as c from "@svc/contract";
import { queryOptions } from "@tanstack/react-query";
import type { ApiClient } from "../../api/client.tsx";

/** GET /api/v1/alert-rules (alerts:read). */
export const alertRulesQuery = (api: ApiClient) =>
  queryOptions({ queryKey: ["alert-rules"], queryFn: () => api.call(c.listAlertRules) });

/** GET /api/v1/alerts (alerts:read): refreshed every 30 s, as often as the console polls for webhooks. */
export const currentAlertsQuery = (api: ApiClient) =>
  queryOptions({
    queryKey: ["alerts"],
    queryFn: async () => (await api.call(c.listCurrentAlerts)).alerts,
    refetchInterval: 30_000,
    retry: false,
  });

/** Firing and pending alert counts of one rule. */
export function ruleCounts(
  alerts: readonly { ruleId: string; state: "pending" | "firing" }[],
  ruleId: string,
): { firing: number; pending: number } {
  let firing = 0;
  let pending = 0;
  for (const a of alerts) {
    if (a.ruleId !== ruleId) continue;
    if (a.state === "firing") firing++;
    else pending++;
  }
  return { firing, pending };
}

/** The words of a rule's state column. */
export function stateText(n: { firing: number; pending: number }, enabled: boolean): string {
  if (!enabled) return "disabled";
  const parts: string[] = [];
  if (n.firing > 0) parts.push(`firing (${n.firing})`);
  if (n.pending > 0) parts.push(`pending (${n.pending})`);
  return parts.length > 0 ? parts.join(", ") : "ok";
}

/** What the sync state of the rules tells a person. */
export function syncText(s: c.AlertRuleSync): string {
  switch (s.state) {
    case "unconfigured":
      return "Rules are stored but not written to Prometheus: set console.alerts.ruleDirectory (or kubernetesContext).";
    case "pending":
      return "Rules are being written to Prometheus…";
    case "synced":
      return `Rules written to Prometheus${s.at ? ` at ${new Date(s.at).toLocaleString()}` : ""}.`;
    case "failed":
      return `Writing the rules to Prometheus failed: ${s.error ?? "unknown error"}`;
  }
}
