/** One visible notice per backend the console is running without or cannot reach. */
import { ApiError, describeError } from "../api/client.tsx";
import type { ConsoleConfigView } from "../api/types.tsx";

/** Which backends are degraded, as notice texts keyed by backend (exported for the Overview page). */
export function degradedBackends(c: ConsoleConfigView): { key: string; title: string; text: string }[] {
  const out: { key: string; title: string; text: string }[] = [];
  if (!c.backends.prometheus)
    out.push({
      key: "prometheus",
      title: "Metrics server not configured",
      text: "prometheus.url is empty: Matrix, charts and health figures are unavailable.",
    });
  if (!c.backends.controller)
    out.push({
      key: "controller",
      title: "Controller not configured",
      text: "controller.url is empty: topology and Run check are unavailable.",
    });
  if (!c.backends.database)
    out.push({
      key: "database",
      title: "No database",
      text: "The console runs in memory: no history, no incidents, no local users or API tokens.",
    });
  return out;
}

/** The notices strip under the top bar. */
export function BackendNotices(props: {
  config: ConsoleConfigView | undefined;
  configError: Error | null;
  meError: Error | null;
}) {
  const items: { key: string; title: string; text: string }[] = [];
  const down = props.configError ?? props.meError;
  if (down && !(down instanceof ApiError && down.status === 401)) {
    const title =
      down instanceof ApiError && down.status === 503 ? "Console store unavailable" : "Console unreachable";
    items.push({ key: "console", title, text: describeError(down) });
  }
  if (props.config) items.push(...degradedBackends(props.config));
  if (items.length === 0) return null;
  return (
    <ul className="notices" aria-label="Degraded backends">
      {items.map((n) => (
        <li key={n.key} className="notice" data-backend={n.key}>
          <strong>{n.title}.</strong> {n.text}
        </li>
      ))}
    </ul>
  );
}
