/** The TCP / UDP / ICMP / PMTU switch of the Matrix and Node pages (it writes the shared `protocol` query key). */
import { PROTOCOL_LABEL, PROTOCOLS, TIER_COLOR, TIER_LABEL } from "./format.ts";
import "./fleet.css";
import type { FleetProtocol, FleetTier } from "./types.ts";

/** A group of toggle buttons; the pressed one is the shown protocol. */
export function ProtocolSwitch(p: { value: FleetProtocol; onChange: (v: FleetProtocol) => void }) {
  return (
    <fieldset className="switch" aria-label="Protocol">
      {PROTOCOLS.map((x) => (
        <button
          key={x}
          type="button"
          aria-pressed={x === p.value}
          className={x === p.value ? "primary" : ""}
          onClick={() => p.onChange(x)}
        >
          {PROTOCOL_LABEL[x]}
        </button>
      ))}
    </fieldset>
  );
}

/** A tier as a coloured badge with its word (or a given word, e.g. a PMTU badge). */
export function TierBadge(p: { tier: FleetTier; word?: string }) {
  const dark = p.tier === "healthy" || p.tier === "failing";
  return (
    <span
      className="badge tier-badge"
      data-tier={p.tier}
      style={{ background: TIER_COLOR[p.tier], color: dark ? "#fff" : "#1b1f24" }}
    >
      {p.word ?? TIER_LABEL[p.tier]}
    </span>
  );
}

/** Colour key of the tiers. */
export function TierLegend(p: { tiers?: readonly FleetTier[] }) {
  const tiers = p.tiers ?? (["healthy", "degraded", "failing", "nodata", "notrun", "unplanned"] as const);
  return (
    <ul className="legend" aria-label="Colour key">
      {tiers.map((t) => (
        <li key={t}>
          <span className="swatch" style={{ background: TIER_COLOR[t] }} aria-hidden="true" />
          {TIER_LABEL[t]}
        </li>
      ))}
    </ul>
  );
}
