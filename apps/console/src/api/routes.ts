/** Registers every console API route on `app` against its contract declaration (one place to see them all). */
import { consoleApiDocument, getOpenApi, type OpenApiDocument } from "@svc/contract";
import type { FastifyInstance } from "fastify";
import type { AlertRules } from "../alerts/rules.ts";
import type { Annotations } from "../annotations/annotations.ts";
import type { Operations } from "../checks/operations.ts";
import type { ConsoleConfig } from "../config/schema.ts";
import type { EventHistory } from "../events/history.ts";
import type { FleetService } from "../fleet/fleet-service.ts";
import type { Incidents } from "../incidents/incidents.ts";
import type { MaintenanceWindows } from "../maintenance/windows.ts";
import type { ConsoleMetrics } from "../metrics.ts";
import type { Db } from "../store/db.ts";
import type { NewAuditRow, Store } from "../store/store.ts";
import type { WebhookEndpoints } from "../webhooks/endpoints.ts";
import type { WebhookSender } from "../webhooks/sender.ts";
import type { ConsoleServices } from "../wiring.ts";
import { addAlertRuleRoutes } from "./alert-rules.ts";
import { addAnnotationRoutes } from "./annotations.ts";
import { addAuthRoutes } from "./auth-routes.ts";
import { addCheckRoutes } from "./checks.ts";
import { addConfigBundleRoutes } from "./config-bundle.ts";
import { addConfigRoute } from "./config-route.ts";
import type { AccessResolver } from "./context.ts";
import type { CookiePolicy } from "./cookie-policy.ts";
import { addEventRoutes } from "./events.ts";
import { addFleetRoutes } from "./fleet.ts";
import { addIncidentRoutes } from "./incidents.ts";
import { addMaintenanceRoutes } from "./maintenance.ts";
import { ANONYMOUS_RUNS_PER_MINUTE, addMetricsQueryRoutes } from "./metrics-queries.ts";
import { addMtrRoutes } from "./mtr.ts";
import { addOidcRoutes } from "./oidc-routes.ts";
import { addRbacRoutes } from "./rbac.ts";
import { routeAdder } from "./register.ts";
import { addRunRoutes } from "./runs.ts";
import { addScheduleRoutes } from "./schedules.ts";
import { addTokenRoutes } from "./tokens.ts";
import { addUserRoutes } from "./users.ts";
import { addWebhookRoutes } from "./webhooks.ts";

/** What the routes need. */
export interface ConsoleRouteDeps {
  config: ConsoleConfig;
  version: string;
  store?: Store;
  services: ConsoleServices;
  fleet: FleetService;
  cookies: CookiePolicy;
  metrics: ConsoleMetrics;
  resolveAccess: AccessResolver;
  audit: (row: Omit<NewAuditRow, "at">) => Promise<void>;
  history: EventHistory;
  /** undefined without a database (the routes answer 503) */
  annotations: Annotations | undefined;
  /** undefined without a database (the routes answer 503) */
  operations?: Operations | undefined;
  /** undefined without a database (the routes answer 503) */
  alertRules?: AlertRules | undefined;
  /** webhook endpoints (undefined without a database: 503) and the sender of send tests */
  webhooks?: { endpoints: WebhookEndpoints | undefined; sender: WebhookSender; now: () => number };
  /** maintenance windows (undefined without a database: 503) */
  maintenance?: MaintenanceWindows | undefined;
  /** incidents (undefined without a database: 503) */
  incidents?: Incidents | undefined;
  /** the database the configuration import runs its transaction on (undefined without one: 503) */
  db?: Db | undefined;
  /** the console's clock */
  now?: () => number;
}

/** Registers the OpenAPI document, config, auth, OIDC, RBAC/audit, users, token and fleet routes. */
export function addConsoleRoutes(app: FastifyInstance, deps: ConsoleRouteDeps): void {
  const { config, services: s, cookies, metrics, resolveAccess, audit } = deps;
  const add = routeAdder(app, resolveAccess);
  const setSessionCookies = cookies.setSession.bind(cookies);
  let openApi: OpenApiDocument | undefined; // built on first request, not at start-up
  add(getOpenApi, async () => {
    openApi ??= consoleApiDocument(deps.version);
    return openApi;
  });
  addConfigRoute(add, { config, version: deps.version, databaseKind: () => deps.store?.kind ?? null });
  addAuthRoutes(add, {
    config,
    resolveAccess,
    sessions: s.sessions,
    signIn: s.signIn,
    audit,
    metrics,
    setSessionCookies,
    clearSessionCookies: cookies.clearSession.bind(cookies),
  });
  addOidcRoutes(add, {
    config,
    client: s.oidc,
    sessions: s.sessions,
    budgets: s.budgets,
    audit,
    metrics,
    setSessionCookies,
    setCookie: (reply, name, value, maxAge) => cookies.set(reply, name, value, maxAge),
  });
  addRbacRoutes(add, { config, rbac: s.rbac, store: deps.store });
  addUserRoutes(add, { config, users: s.users, signIn: s.signIn, audit });
  addTokenRoutes(add, { tokens: s.tokens });
  // one anonymous budget for every route that starts probes: runs and the pair page's check (a run of one pair)
  const runBudget = s.budgets("anonymous-runs", ANONYMOUS_RUNS_PER_MINUTE, 60_000);
  addFleetRoutes(add, { fleet: deps.fleet, audit, runs: deps.operations?.runs, runBudget });
  addEventRoutes(add, { history: deps.history });
  addAnnotationRoutes(add, { annotations: deps.annotations });
  addCheckRoutes(add, { catalog: deps.operations?.catalog, audit });
  addScheduleRoutes(add, { schedules: deps.operations?.schedules });
  addRunRoutes(add, { runs: deps.operations?.runs, budget: runBudget });
  addMetricsQueryRoutes(add, { config, budgets: s.budgets });
  addMtrRoutes(add, { mtr: deps.operations?.mtr });
  addAlertRuleRoutes(add, { rules: deps.alertRules, config });
  if (deps.webhooks) addWebhookRoutes(add, { ...deps.webhooks, audit });
  addMaintenanceRoutes(add, { windows: deps.maintenance });
  addIncidentRoutes(add, { incidents: deps.incidents });
  addConfigBundleRoutes(add, {
    config,
    version: deps.version,
    now: deps.now ?? Date.now,
    resolveAccess,
    db: deps.db,
    operations: deps.operations,
    alertRules: deps.alertRules,
    maintenance: deps.maintenance,
    webhooks: deps.webhooks?.endpoints,
    rbac: s.rbac,
  });
}
