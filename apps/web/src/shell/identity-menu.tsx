/** The identity menu: who is signed in, their roles, and Sign out. Closes on Escape and on outside click. */
import * as c from "@svc/contract";
import { useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { useEffect, useRef, useState } from "react";
import type { MeView } from "../api/types.tsx";
import { useApp } from "../context.tsx";

/** Menu button plus popover. */
export function IdentityMenu(props: { me: MeView | undefined; mode: string | undefined }) {
  const { api } = useApp();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && setOpen(false);
    const onClick = (e: MouseEvent) => {
      if (box.current && !box.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("mousedown", onClick);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("mousedown", onClick);
    };
  }, [open]);
  const me = props.me;
  if (!me) return <div className="identity" />;
  const anonymous = me.via === "anonymous";
  const signOut = async () => {
    try {
      await api.call(c.logout, {}, { expect401: true });
    } catch {
      // logout is idempotent; whatever happened, the local state is dropped
    }
    queryClient.clear();
    await navigate({ to: "/sign-in", search: {} });
  };
  return (
    <div className="identity" ref={box}>
      <button
        type="button"
        className="identity-button"
        aria-haspopup="true"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        {anonymous ? "Anonymous" : me.displayName}
      </button>
      {open ? (
        <section className="identity-menu" aria-label="Account">
          <p>
            <span className="muted">Signed in as</span> <strong>{me.displayName || me.subject}</strong>
          </p>
          <p className="muted small">{me.subject}</p>
          <p>
            <span className="muted">Roles:</span> {me.roles.length > 0 ? me.roles.join(", ") : "none"}
          </p>
          {anonymous || props.mode === "anonymous" ? null : (
            <button type="button" onClick={() => void signOut()}>
              Sign out
            </button>
          )}
        </section>
      ) : null}
    </div>
  );
}
