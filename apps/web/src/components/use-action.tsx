/** Runs a write against the API, then refreshes the named queries; keeps the last error text for display. */
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { describeError } from "../api/client.tsx";

/** State and runner of one section's actions. */
export function useAction(invalidate: string[]) {
  const queryClient = useQueryClient();
  const [error, setError] = useState("");
  const [notice, setNotice] = useState("");
  const [busy, setBusy] = useState(false);
  const run = async (fn: () => Promise<unknown>, done?: string): Promise<boolean> => {
    setBusy(true);
    setError("");
    setNotice("");
    try {
      await fn();
      if (done) setNotice(done);
      return true;
    } catch (e) {
      setError(describeError(e));
      return false;
    } finally {
      // busy until the lists hold the outcome: a control that acts on a row must not act on the row as it was
      for (const key of invalidate) await queryClient.invalidateQueries({ queryKey: [key] });
      setBusy(false);
    }
  };
  return { run, error, notice, busy };
}

/** The error and notice lines of a section. */
export function ActionStatus(p: { error: string; notice: string }) {
  return (
    <>
      <p className="form-error" role="alert">
        {p.error}
      </p>
      <p className="form-notice" role="status">
        {p.notice}
      </p>
    </>
  );
}
