/**
 * A button that needs a second press to act (spec §3.2: delete asks for a second press). The first press arms it
 * for a few seconds and changes its label; the second press within that time performs the action.
 */
import { useEffect, useState } from "react";

/** Props of ConfirmButton. */
export interface ConfirmButtonProps {
  label: string;
  confirmLabel: string;
  onConfirm: () => void;
  disabled?: boolean;
  className?: string;
  /** how long the armed state lasts; default 5 s */
  armedMs?: number;
}

/** The two-press button. */
export function ConfirmButton(p: ConfirmButtonProps) {
  const [armed, setArmed] = useState(false);
  useEffect(() => {
    if (!armed) return;
    const t = setTimeout(() => setArmed(false), p.armedMs ?? 5000);
    return () => clearTimeout(t);
  }, [armed, p.armedMs]);
  return (
    <button
      type="button"
      className={armed ? `danger armed ${p.className ?? ""}` : (p.className ?? "")}
      disabled={p.disabled}
      aria-live="polite"
      onClick={() => {
        if (!armed) {
          setArmed(true);
          return;
        }
        setArmed(false);
        p.onConfirm();
      }}
      onBlur={() => setArmed(false)}
    >
      {armed ? p.confirmLabel : p.label}
    </button>
  );
}
