/** The Webhooks section's action runner (keeping the raw error) and its error line (the no-key 503 as a banner). */
import { useState } from "react";
import { describeError } from "../../api/client.tsx";
import { useAction } from "../../components/use-action.tsx";
import { isNoKey, NO_KEY_TEXT } from "./webhook-form.ts";

/** The key-missing notice, or the error text of an action. */
export function ErrorLine(p: { error: unknown }) {
  if (!p.error) return null;
  return isNoKey(p.error) ? (
    <p className="banner banner-warn" role="alert" data-testid="webhook-no-key">
      {NO_KEY_TEXT}
    </p>
  ) : (
    <p className="form-error" role="alert">
      {describeError(p.error)}
    </p>
  );
}

/** Runs an action on the endpoints, keeping the raw error so the 503 can be told apart. */
export function useRawAction() {
  const act = useAction(["webhooks"]);
  const [raw, setRaw] = useState<unknown>(null);
  const run = (fn: () => Promise<unknown>, done?: string) =>
    act.run(async () => {
      setRaw(null);
      try {
        return await fn();
      } catch (e) {
        setRaw(e);
        throw e;
      }
    }, done);
  return { ...act, run, raw };
}
