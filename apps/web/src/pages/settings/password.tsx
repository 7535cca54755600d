/** Own password change (local session): current password, new password twice; other sessions end. */
import * as c from "@svc/contract";
import { type FormEvent, useState } from "react";
import { ActionStatus, useAction } from "../../components/use-action.tsx";
import { useApp } from "../../context.tsx";

/** The Password section. */
export function PasswordSection(p: { minLength: number }) {
  const { api } = useApp();
  const act = useAction([]);
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [again, setAgain] = useState("");
  const [local, setLocal] = useState("");
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setLocal("");
    if (next.length < p.minLength)
      return setLocal(`The new password needs at least ${p.minLength} characters.`);
    if (next !== again) return setLocal("The two new passwords differ.");
    const ok = await act.run(
      () =>
        // 401 here means "current password is wrong", not "signed out"
        api.call(
          c.changePassword,
          { body: { currentPassword: current, newPassword: next } },
          { expect401: true },
        ),
      "Password changed. Your other sessions were signed out.",
    );
    if (ok) {
      setCurrent("");
      setNext("");
      setAgain("");
    }
  };
  return (
    <form className="card grid-form" onSubmit={(e) => void submit(e)} aria-label="Change your password">
      <h2>Change your password</h2>
      <label htmlFor="pw-current">Current password</label>
      <input
        id="pw-current"
        type="password"
        autoComplete="current-password"
        value={current}
        onChange={(e) => setCurrent(e.target.value)}
      />
      <label htmlFor="pw-new">New password</label>
      <input
        id="pw-new"
        type="password"
        autoComplete="new-password"
        value={next}
        onChange={(e) => setNext(e.target.value)}
      />
      <label htmlFor="pw-again">New password again</label>
      <input
        id="pw-again"
        type="password"
        autoComplete="new-password"
        value={again}
        onChange={(e) => setAgain(e.target.value)}
      />
      <button type="submit" className="primary" disabled={act.busy}>
        Change password
      </button>
      <ActionStatus error={local || act.error} notice={act.notice} />
    </form>
  );
}
