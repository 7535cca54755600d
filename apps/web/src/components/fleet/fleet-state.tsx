/**
 * What a fleet page shows instead of figures: loading, or a failure named the way people think of it (spec §7):
 * 503 metrics_unconfigured -> "metrics server not configured", 502 metrics_unreachable -> "metrics server
 * unreachable", 503 controller_unconfigured -> "controller not configured", any other 502 -> "controller
 * unreachable", 404 unknown_node -> "No node named X".
 */
import { Link } from "@tanstack/react-router";
import { ApiError, describeError } from "../../api/client.tsx";

/** Title and text of a fleet API failure. */
export function fleetFailure(e: unknown, subject?: string): { key: string; title: string; text: string } {
  if (e instanceof ApiError) {
    if (e.status === 503 && e.code === "metrics_unconfigured")
      return {
        key: "metrics",
        title: "Metrics server not configured",
        text: "The console has no prometheus.url, so there are no figures to show. Set it and restart the console.",
      };
    if (e.code === "metrics_unreachable")
      return {
        key: "metrics-down",
        title: "Metrics server unreachable",
        text: `The console cannot get figures from the metrics server (${e.message}). They return when it answers.`,
      };
    if (e.status === 503 && e.code === "controller_unconfigured")
      return {
        key: "controller-unconfigured",
        title: "Controller not configured",
        text: "The console has no controller.url, so it knows no nodes or topology. Set it and restart the console.",
      };
    if (e.status === 502 || e.code === "controller_unreachable")
      return {
        key: "controller",
        title: "Controller unreachable",
        text: `The console cannot reach the controller (${e.message}). Figures return when it answers.`,
      };
    if (e.status === 404 && e.code === "unknown_node")
      return {
        key: "unknown",
        title: subject ? `No node named ${subject}` : "No such node",
        text: e.message,
      };
  }
  return { key: "error", title: "Could not load", text: describeError(e) };
}

/** The card for a failed fleet query. */
export function FleetError(p: { error: unknown; subject?: string }) {
  const f = fleetFailure(p.error, p.subject);
  return (
    <div className="card fleet-error" role="alert" data-failure={f.key}>
      <h2>{f.title}</h2>
      <p>{f.text}</p>
      {f.key === "unknown" ? (
        <p>
          <Link to="/matrix">Back to the matrix</Link>
        </p>
      ) : null}
    </div>
  );
}

/** Loading line. */
export function Loading(p: { what: string }) {
  return (
    <p className="muted" role="status">
      Loading {p.what}…
    </p>
  );
}
