/**
 * Sign-in (spec §5.2, §5.5): local username/password, the OIDC button when the console runs OIDC. Empty fields are
 * refused here before any request; 401 and 429 are worded for people. After sign-in the user returns to `next`.
 */
import * as c from "@svc/contract";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter, useSearch } from "@tanstack/react-router";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { ApiError, describeError } from "../api/client.tsx";
import { safeNext, servedAuthMode, useApp } from "../context.tsx";

/** Text shown for a failed sign-in. */
export function signInErrorText(e: unknown): string {
  if (e instanceof ApiError) {
    if (e.status === 401) return "Wrong username or password.";
    if (e.status === 429) {
      return e.retryAfter !== null
        ? `Too many attempts, try again in ${e.retryAfter} s.`
        : "Too many attempts, try again in a minute.";
    }
    if (e.status === 404) return "Username and password sign-in is not enabled on this console.";
  }
  return describeError(e);
}

/** The sign-in page. */
export function SignInPage() {
  const { api } = useApp();
  const queryClient = useQueryClient();
  const router = useRouter();
  const { next } = useSearch({ from: "/sign-in" });
  const target = safeNext(next);
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const userRef = useRef<HTMLInputElement>(null);
  const passRef = useRef<HTMLInputElement>(null);
  // A caller that already has an identity (anonymous mode, live session) needs no sign-in. Asked afresh on every
  // visit, never from a cache: a stale answer would bounce an ended session between here and the page it left.
  useEffect(() => {
    let live = true;
    api.call(c.getMe, {}, { expect401: true }).then(
      () => live && router.history.push(target),
      () => {},
    );
    return () => {
      live = false;
    };
  }, [api, router, target]);
  const config = useQuery({
    queryKey: ["config", "sign-in-probe"],
    queryFn: () => api.call(c.getConfig, {}, { expect401: true }),
    retry: false,
  });

  const mode = config.data?.auth.mode ?? servedAuthMode();
  const showLocal = mode === "local" || mode === "";
  const showOidc = mode === "oidc";

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (username.trim() === "") {
      setError("Enter your username.");
      userRef.current?.focus();
      return;
    }
    if (password === "") {
      setError("Enter your password.");
      passRef.current?.focus();
      return;
    }
    setBusy(true);
    setError("");
    try {
      const who = await api.call(c.login, { body: { username, password } }, { expect401: true });
      queryClient.clear();
      queryClient.setQueryData(["me"], who);
      router.history.push(target);
    } catch (err) {
      setError(signInErrorText(err));
      setPassword("");
      passRef.current?.focus();
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="sign-in" id="main">
      <div className="sign-in-card">
        <h1>Sign in to svc console</h1>
        {showOidc ? (
          <a
            className="button primary block"
            href={`${c.OIDC_START_PATH}?returnTo=${encodeURIComponent(target)}`}
          >
            Sign in with your identity provider
          </a>
        ) : null}
        {mode === "header" ? (
          <p>This console takes your identity from the proxy in front of it. Reload the page to try again.</p>
        ) : null}
        {showLocal ? (
          <form onSubmit={(e) => void submit(e)} noValidate aria-describedby="sign-in-error">
            <label htmlFor="username">Username</label>
            <input
              id="username"
              ref={userRef}
              name="username"
              autoComplete="username"
              value={username}
              onChange={(e) => setUsername(e.target.value)}
            />
            <label htmlFor="password">Password</label>
            <input
              id="password"
              ref={passRef}
              name="password"
              type="password"
              autoComplete="current-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
            <button type="submit" className="primary block" disabled={busy}>
              {busy ? "Signing in…" : "Sign in"}
            </button>
          </form>
        ) : null}
        <p id="sign-in-error" className="form-error" role="alert">
          {error}
        </p>
      </div>
    </main>
  );
}
