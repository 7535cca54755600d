/** Every console route, in the order the docs list them. A route the console serves is declared here. */
import * as alertRules from "./alert-rules.ts";
import * as annotations from "./annotations.ts";
import * as auth from "./auth.ts";
import * as checks from "./checks.ts";
import * as bundle from "./config-bundle.ts";
import * as config from "./console-config.ts";
import * as events from "./events.ts";
import * as fleet from "./fleet.ts";
import * as incidents from "./incidents.ts";
import * as maintenance from "./maintenance.ts";
import * as metricsQueries from "./metrics-queries.ts";
import * as mtr from "./mtr.ts";
import * as probes from "./probes.ts";
import * as rbac from "./rbac.ts";
import type { RouteSpec } from "./route.ts";
import * as runs from "./runs.ts";
import * as schedules from "./schedules.ts";
import * as suspects from "./suspects.ts";
import * as targets from "./targets.ts";
import * as tokens from "./tokens.ts";
import * as users from "./users.ts";
import * as webhooks from "./webhooks.ts";
import * as ws from "./ws.ts";

/** The console's routes. */
export const routes: readonly RouteSpec[] = [
  probes.healthz,
  probes.readyz,
  probes.metrics,
  probes.getOpenApi,
  config.getConfig,
  auth.getMe,
  auth.logout,
  auth.login,
  auth.changePassword,
  auth.oidcStart,
  auth.oidcCallback,
  rbac.listAudit,
  rbac.listBindings,
  rbac.createBinding,
  rbac.deleteBinding,
  rbac.listRoles,
  rbac.putRole,
  rbac.deleteRole,
  users.listUsers,
  users.createUser,
  users.setUserRole,
  users.disableUser,
  users.enableUser,
  users.deleteUser,
  users.resetUserPassword,
  tokens.listTokens,
  tokens.mintToken,
  tokens.revokeToken,
  tokens.deleteToken,
  fleet.getMatrix,
  fleet.getTopology,
  fleet.getOverview,
  fleet.getNode,
  fleet.getPair,
  fleet.runFleetCheck,
  suspects.getSuspects,
  events.listEvents,
  events.listK8sEvents,
  annotations.listAnnotations,
  annotations.createAnnotation,
  annotations.updateAnnotation,
  annotations.deleteAnnotation,
  incidents.listIncidents,
  incidents.getIncident,
  incidents.createIncident,
  incidents.resolveIncident,
  incidents.reopenIncident,
  incidents.updateIncidentNotes,
  incidents.pinFinding,
  incidents.unpinFinding,
  incidents.deleteIncident,
  targets.listTargets,
  targets.getTarget,
  targets.createTarget,
  targets.updateTarget,
  targets.deleteTarget,
  checks.listChecks,
  checks.createCheck,
  checks.projectCheck,
  checks.updateCheck,
  checks.deleteCheck,
  schedules.listSchedules,
  schedules.createSchedule,
  schedules.updateSchedule,
  schedules.deleteSchedule,
  runs.createRun,
  runs.listRuns,
  runs.getRun,
  mtr.listMtrSnapshots,
  metricsQueries.queryMetrics,
  metricsQueries.queryMetricsRange,
  alertRules.listAlertRules,
  alertRules.getAlertRule,
  alertRules.createAlertRule,
  alertRules.previewAlertRule,
  alertRules.updateAlertRule,
  alertRules.deleteAlertRule,
  alertRules.listCurrentAlerts,
  maintenance.listMaintenanceWindows,
  maintenance.createMaintenanceWindow,
  maintenance.updateMaintenanceWindow,
  maintenance.deleteMaintenanceWindow,
  webhooks.listWebhooks,
  webhooks.createWebhook,
  webhooks.updateWebhook,
  webhooks.deleteWebhook,
  webhooks.testWebhook,
  bundle.exportConfig,
  bundle.importConfig,
  ws.openSocket,
];
