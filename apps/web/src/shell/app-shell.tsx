/**
 * The frame of every signed-in page: skip link, navigation, identity menu, the anonymous-mode banner (spec §5.2:
 * every page), one notice per degraded backend, then the page.
 */
import { useQuery } from "@tanstack/react-query";
import { Link, Outlet, useNavigate } from "@tanstack/react-router";
import { useEffect, useState } from "react";
import { ApiError } from "../api/client.tsx";
import { configQuery, meQuery } from "../api/queries.tsx";
import { useApp } from "../context.tsx";
import { BackendNotices } from "./backend-notices.tsx";
import { IdentityMenu } from "./identity-menu.tsx";
import { TimeMachineBanner, TimeMachineControl } from "./time-machine.tsx";

const NAV = [
  { to: "/", label: "Overview" },
  { to: "/matrix", label: "Matrix" },
  { to: "/topology", label: "Topology" },
  { to: "/events", label: "Events" },
  { to: "/incidents", label: "Incidents" },
  { to: "/investigate", label: "Investigate" },
  { to: "/targets", label: "Targets" },
  { to: "/checks", label: "Checks" },
  { to: "/schedules", label: "Schedules" },
  { to: "/runs", label: "Runs" },
  { to: "/metrics", label: "Metrics" },
  { to: "/alerts", label: "Alerts" },
  { to: "/maintenance", label: "Maintenance" },
  { to: "/settings", label: "Settings" },
] as const;

/** Layout component of the app route. */
export function AppShell() {
  const { api } = useApp();
  const config = useQuery(configQuery(api));
  const me = useQuery(meQuery(api));
  const [navOpen, setNavOpen] = useState(false);
  const navigate = useNavigate();
  // a background refetch of /auth/me (window focus) that finds the session gone also ends on sign-in
  const ended = me.error instanceof ApiError && me.error.status === 401;
  useEffect(() => {
    if (!ended) return;
    void navigate({ to: "/sign-in", search: { next: window.location.pathname + window.location.search } });
  }, [ended, navigate]);
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          svc console
        </Link>
        <button
          type="button"
          className="nav-toggle"
          aria-expanded={navOpen}
          aria-controls="main-nav"
          onClick={() => setNavOpen(!navOpen)}
        >
          Menu
        </button>
        <nav id="main-nav" aria-label="Main" className={navOpen ? "nav open" : "nav"}>
          {NAV.map((n) => (
            <Link
              key={n.to}
              to={n.to}
              activeOptions={{ exact: n.to === "/" }}
              activeProps={{ className: "active", "aria-current": "page" }}
              onClick={() => setNavOpen(false)}
            >
              {n.label}
            </Link>
          ))}
        </nav>
        <TimeMachineControl />
        <IdentityMenu me={me.data} mode={config.data?.auth.mode} />
      </header>
      {config.data?.auth.anonymousBanner ? (
        <div className="banner banner-warn" role="alert" data-testid="anonymous-banner">
          <strong>Anonymous mode.</strong> Anyone who can reach this console acts as{" "}
          <code>{config.data.auth.anonymousRole}</code> without signing in. Configure <code>auth.mode</code>{" "}
          to require sign-in.
        </div>
      ) : null}
      <TimeMachineBanner />
      <BackendNotices config={config.data} configError={config.error} meError={me.error} />
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
      <footer className="footer">{config.data ? `svc ${config.data.version}` : ""}</footer>
    </div>
  );
}
