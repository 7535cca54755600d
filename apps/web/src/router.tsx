/**
 * Routes (TanStack Router, code-based). `/sign-in` stands alone; every other page sits under the app layout,
 * whose guard asks GET /api/v1/auth/me on each navigation: a 401 sends the user to sign-in with `next` set to where
 * they were, so a session that ended (expired, user disabled) is noticed on the next click.
 */
import {
  createRootRouteWithContext,
  createRoute,
  createRouter,
  Outlet,
  redirect,
  retainSearchParams,
} from "@tanstack/react-router";
import { ApiError } from "./api/client.tsx";
import { meQuery } from "./api/queries.tsx";
import type { AppContext } from "./context.tsx";
import { AlertsPage } from "./pages/alerts/alerts-page.tsx";
import { EventsPage } from "./pages/events/events-page.tsx";
import { IncidentPage } from "./pages/incidents/incident-page.tsx";
import { IncidentsPage } from "./pages/incidents/incidents-page.tsx";
import { InvestigatePage } from "./pages/investigate/investigate-page.tsx";
import { MaintenancePage } from "./pages/maintenance/maintenance-page.tsx";
import { MatrixPage } from "./pages/matrix/matrix-page.tsx";
import { NodePage } from "./pages/node/node-page.tsx";
import { NotFoundPage } from "./pages/not-found.tsx";
import { ChecksPage } from "./pages/operations/checks-page.tsx";
import { MetricsPage } from "./pages/operations/metrics-page.tsx";
import { RunPage, RunsPage } from "./pages/operations/runs-page.tsx";
import { SchedulesPage } from "./pages/operations/schedules-page.tsx";
import { TargetPage } from "./pages/operations/target-page.tsx";
import { TargetsPage } from "./pages/operations/targets-page.tsx";
import { OverviewPage } from "./pages/overview/overview-page.tsx";
import { PairPage } from "./pages/pair/pair-page.tsx";
import { SettingsPage } from "./pages/settings/settings.tsx";
import { SignInPage } from "./pages/sign-in.tsx";
import { TopologyPage } from "./pages/topology/topology-page.tsx";
import { AppShell } from "./shell/app-shell.tsx";
import { parseAt, useAt } from "./shell/time-machine.tsx";

const rootRoute = createRootRouteWithContext<AppContext>()({
  component: Outlet,
  notFoundComponent: NotFoundPage,
});

const signInRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/sign-in",
  validateSearch: (s: Record<string, unknown>): { next?: string } =>
    typeof s.next === "string" ? { next: s.next } : {},
  component: SignInPage,
});

const appRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: "app",
  beforeLoad: async ({ context, location }) => {
    try {
      await context.queryClient.fetchQuery({ ...meQuery(context.api), staleTime: 0 });
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) {
        throw redirect({ to: "/sign-in", search: { next: location.href } });
      }
      // other failures (console unreachable, store down) are shown by the shell, not here
    }
  },
  // the Time Machine instant stays on every page until the banner returns to live
  validateSearch: (s: Record<string, unknown>): { at?: string } => {
    const at = parseAt(s.at);
    return at ? { at } : {};
  },
  search: { middlewares: [retainSearchParams(["at"])] },
  component: AppShell,
});

function EventsRoute() {
  return <EventsPage at={useAt()} />;
}

const overviewRoute = createRoute({ getParentRoute: () => appRoute, path: "/", component: OverviewPage });
const matrixRoute = createRoute({
  getParentRoute: () => appRoute,
  path: "/matrix",
  validateSearch: (s: Record<string, unknown>): { protocol?: string } =>
    typeof s.protocol === "string" ? { protocol: s.protocol } : {},
  component: MatrixPage,
});
const topologyRoute = createRoute({
  getParentRoute: () => appRoute,
  path: "/topology",
  component: TopologyPage,
});
const nodeRoute = createRoute({
  getParentRoute: () => appRoute,
  path: "/nodes/$name",
  validateSearch: (s: Record<string, unknown>): { protocol?: string } =>
    typeof s.protocol === "string" ? { protocol: s.protocol } : {},
  component: NodePage,
});
const pairRoute = createRoute({
  getParentRoute: () => appRoute,
  path: "/pairs/$source/$destination",
  validateSearch: (s: Record<string, unknown>): { window?: string } =>
    typeof s.window === "string" ? { window: s.window } : {},
  component: PairPage,
});
const eventsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: "/events",
  component: EventsRoute,
});
const targetsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: "/targets",
  component: TargetsPage,
});
const targetRoute = createRoute({
  getParentRoute: () => appRoute,
  path: "/targets/$id",
  component: TargetPage,
});
const schedulesRoute = createRoute({
  getParentRoute: () => appRoute,
  path: "/schedules",
  component: SchedulesPage,
});
const checksRoute = createRoute({ getParentRoute: () => appRoute, path: "/checks", component: ChecksPage });
const runsRoute = createRoute({ getParentRoute: () => appRoute, path: "/runs", component: RunsPage });
const runRoute = createRoute({ getParentRoute: () => appRoute, path: "/runs/$id", component: RunPage });
const metricsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: "/metrics",
  component: MetricsPage,
});
const investigateRoute = createRoute({
  getParentRoute: () => appRoute,
  path: "/investigate",
  // committed parameters (kind, scope, from, to) or an incident permalink; read and judged by the page
  validateSearch: (s: Record<string, unknown>): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const k of ["kind", "scope", "from", "to", "incident"]) {
      const v = Object.hasOwn(s, k) ? s[k] : undefined;
      // the router's search parser reads `?scope=12` as a number: a node or id may look like one
      if (typeof v === "string") out[k] = v;
      else if (typeof v === "number" && Number.isFinite(v)) out[k] = String(v);
    }
    return out;
  },
  component: InvestigatePage,
});
const alertsRoute = createRoute({ getParentRoute: () => appRoute, path: "/alerts", component: AlertsPage });
const maintenanceRoute = createRoute({
  getParentRoute: () => appRoute,
  path: "/maintenance",
  component: MaintenancePage,
});
const incidentsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: "/incidents",
  component: IncidentsPage,
});
const incidentRoute = createRoute({
  getParentRoute: () => appRoute,
  path: "/incidents/$id",
  component: IncidentPage,
});
const settingsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: "/settings",
  validateSearch: (s: Record<string, unknown>): { tab?: string } =>
    typeof s.tab === "string" ? { tab: s.tab } : {},
  component: SettingsPage,
});

const routeTree = rootRoute.addChildren([
  signInRoute,
  appRoute.addChildren([
    overviewRoute,
    matrixRoute,
    topologyRoute,
    nodeRoute,
    pairRoute,
    eventsRoute,
    targetsRoute,
    targetRoute,
    checksRoute,
    schedulesRoute,
    runsRoute,
    runRoute,
    metricsRoute,
    alertsRoute,
    maintenanceRoute,
    investigateRoute,
    incidentsRoute,
    incidentRoute,
    settingsRoute,
  ]),
]);

/** Builds the router over the app context. */
export function makeRouter(context: AppContext) {
  return createRouter({ routeTree, context, defaultPreload: false, scrollRestoration: true });
}

declare module "@tanstack/react-router" {
  interface Register {
    router: ReturnType<typeof makeRouter>;
  }
}
