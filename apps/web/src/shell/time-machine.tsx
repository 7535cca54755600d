/**
 * The Time Machine (spec §1, §3.1): a control in the shell sets `?at=<instant>` on every page (the app route keeps
 * the key across navigation); pages then show the state as of that instant, stop live tailing and disable every
 * action that would probe now. A banner names the instant and returns to live.
 */
import { useNavigate, useSearch } from "@tanstack/react-router";
import { type FormEvent, useState } from "react";

/** The `at` search value if it is an ISO instant, else undefined. */
export function parseAt(v: unknown): string | undefined {
  if (typeof v !== "string" || v.length > 64) return undefined;
  const t = Date.parse(v);
  return Number.isFinite(t) && /^\d{4}-\d{2}-\d{2}T/.test(v) ? new Date(t).toISOString() : undefined;
}

/** The Time Machine instant of the current page, or undefined when live. */
export function useAt(): string | undefined {
  return parseAt((useSearch({ strict: false }) as { at?: unknown }).at);
}

/** Records created at or before `at` (what existed at that instant). */
export function createdBy<T extends { createdAt: string }>(items: readonly T[], at: string): T[] {
  const t = Date.parse(at);
  return items.filter((r) => Date.parse(r.createdAt) <= t);
}

/** `<input type="datetime-local">` text of an instant, in the browser's time zone. */
export function localInputValue(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The control in the top bar. */
export function TimeMachineControl() {
  const at = useAt();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const [value, setValue] = useState("");
  const [error, setError] = useState("");
  const go = (e: FormEvent) => {
    e.preventDefault();
    const t = new Date(value).getTime();
    if (!Number.isFinite(t)) return setError("Choose a date and time.");
    if (t > Date.now()) return setError("The Time Machine shows the past: choose an earlier instant.");
    setError("");
    setOpen(false);
    void navigate({
      to: ".",
      search: (prev: Record<string, unknown>) => ({ ...prev, at: new Date(t).toISOString() }),
    });
  };
  return (
    <div className="time-machine">
      <button
        type="button"
        aria-expanded={open}
        onClick={() => {
          setValue(localInputValue(at ? Date.parse(at) : Date.now() - 3_600_000));
          setOpen(!open);
        }}
      >
        Time Machine
      </button>
      {open ? (
        <form className="card time-machine-form" onSubmit={go} aria-label="Time Machine">
          <label>
            Show the console as of{" "}
            <input type="datetime-local" value={value} onChange={(e) => setValue(e.target.value)} required />
          </label>
          <button type="submit">Go</button>
          {error ? (
            <p className="form-error" role="alert">
              {error}
            </p>
          ) : null}
        </form>
      ) : null}
    </div>
  );
}

/** The banner every page shows under the Time Machine. */
export function TimeMachineBanner() {
  const at = useAt();
  const navigate = useNavigate();
  if (!at) return null;
  return (
    <div className="banner banner-warn" role="status" data-testid="time-machine-banner">
      <strong>Time Machine:</strong> showing the state as of{" "}
      <time dateTime={at}>{new Date(at).toLocaleString()}</time>. Live updates are off and actions that would
      probe now are disabled.{" "}
      <button
        type="button"
        onClick={() =>
          void navigate({
            to: ".",
            // `at: undefined` (not a missing key): the app route keeps a missing `at` across navigation
            search: (prev: Record<string, unknown>) => ({ ...prev, at: undefined }),
          })
        }
      >
        Return to live
      </button>
    </div>
  );
}
