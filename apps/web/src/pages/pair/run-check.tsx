/**
 * "Run check": a one-shot TCP diagnostic for exactly this pair through the controller (POST /api/v1/fleet/check),
 * its CheckResult shown when it answers. Offered only to callers holding runs:create.
 */
import * as c from "@svc/contract";
import { useState } from "react";
import { describeError } from "../../api/client.tsx";
import type { FleetCheckResult } from "../../components/fleet/types.ts";
import { useApp } from "../../context.tsx";

function durationText(ns: number | undefined): string {
  return ns === undefined ? "" : ` in ${(ns / 1e6).toFixed(ns < 1e7 ? 2 : 0)} ms`;
}

/** The button and the last result. */
export function RunCheck(p: { source: string; destination: string; past?: boolean }) {
  const { api } = useApp();
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<FleetCheckResult | null>(null);
  const [error, setError] = useState("");
  const run = async () => {
    setBusy(true);
    setError("");
    setResult(null);
    try {
      setResult(
        await api.call(c.runFleetCheck, {
          body: { source: p.source, destination: p.destination, type: "tcp" },
        }),
      );
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="card">
      <h2>Run check</h2>
      <p className="muted small">
        A one-shot TCP check from {p.source} to {p.destination}, run now by the source's agent.
      </p>
      <button
        type="button"
        className="primary"
        disabled={busy || p.past === true}
        title={p.past ? "The Time Machine shows the past: a check would probe now" : undefined}
        onClick={() => void run()}
      >
        {busy ? "Running…" : "Run check"}
      </button>
      {p.past ? (
        <p className="muted small" data-testid="run-check-disabled">
          Disabled under the Time Machine: a check probes now, not at the instant shown.
        </p>
      ) : null}
      <div role="status" data-testid="check-result">
        {result ? (
          <p className={result.success ? "ok" : "warn"}>
            <strong>{result.success ? "Succeeded" : "Failed"}</strong>: {result.type.toUpperCase()}{" "}
            {result.source} → {result.destination}
            {durationText(result.duration)}
            {result.error ? ` — ${result.error}` : ""}
          </p>
        ) : null}
      </div>
      <p className="form-error" role="alert">
        {error}
      </p>
    </div>
  );
}
