/**
 * The one-line summary of a stored event (spec §2.11: it opens with the type's words). Wording (docs/decisions.md,
 * "Event history"): `<Type words>: <what>`, the type words being the Type filter's labels (§4.4):
 *
 * - TopologyChanged: `Topology changed: <change> <scope>[ (<reason>)]`, e.g. `Topology changed: agent-left node-3 (evicted)`
 * - CheckObserved: `Check observed: <type> <scope> ok|failed[: <error>]`
 * - MTRTriggered: `MTR triggered: <scope>[ (<reason>)]`
 * - MTRCompleted: `MTR completed: <scope> ok|failed[, <n> hops]`
 * - DiagnosticProgress: `Diagnostic progress: <state> <type> <scope>`
 * - any other type: `<type>: <scope>`
 *
 * Parts the payload lacks are left out; the line is cut at SUMMARY_MAX characters.
 */

/** Longest summary line. */
export const SUMMARY_MAX = 300;

/** The words each known type's summary opens with. */
export const TYPE_WORDS: Readonly<Record<string, string>> = {
  TopologyChanged: "Topology changed",
  CheckObserved: "Check observed",
  MTRTriggered: "MTR triggered",
  MTRCompleted: "MTR completed",
  DiagnosticProgress: "Diagnostic progress",
};

function str(payload: Record<string, unknown>, key: string): string {
  const v = Object.hasOwn(payload, key) ? payload[key] : undefined;
  return typeof v === "string" || typeof v === "number" ? String(v) : "";
}

function outcome(payload: Record<string, unknown>): string {
  const ok = Object.hasOwn(payload, "success") ? payload.success : undefined;
  return ok === true ? "ok" : ok === false ? "failed" : "";
}

function hops(payload: Record<string, unknown>): string {
  const details = Object.hasOwn(payload, "details") ? payload.details : undefined;
  if (typeof details !== "object" || details === null || !Object.hasOwn(details, "hops")) return "";
  const h = (details as Record<string, unknown>).hops;
  return Array.isArray(h) ? `${h.length} hops` : "";
}

/** Joins the non-empty parts with single spaces; a one-line text (control characters become spaces). */
function line(...parts: string[]): string {
  return parts
    .filter((p) => p !== "")
    .join(" ")
    .replace(/\p{Cc}+/gu, " ");
}

/** The summary of an event of `type` on `scope` carrying `payload`. */
export function summarize(type: string, scope: string, payload: Record<string, unknown>): string {
  const words = Object.hasOwn(TYPE_WORDS, type) ? TYPE_WORDS[type] : type;
  let what: string;
  switch (type) {
    case "TopologyChanged": {
      const reason = str(payload, "reason");
      what = line(str(payload, "change"), scope, reason === "" ? "" : `(${reason})`);
      break;
    }
    case "CheckObserved": {
      const err = str(payload, "error");
      const result = outcome(payload);
      what = line(str(payload, "type"), scope, result === "failed" && err !== "" ? `failed: ${err}` : result);
      break;
    }
    case "MTRTriggered": {
      const reason = str(payload, "reason");
      what = line(scope, reason === "" ? "" : `(${reason})`);
      break;
    }
    case "MTRCompleted": {
      const n = hops(payload);
      what = line(scope, outcome(payload) + (n === "" ? "" : `, ${n}`));
      break;
    }
    case "DiagnosticProgress":
      what = line(str(payload, "state"), str(payload, "type"), scope);
      break;
    default:
      what = line(scope);
  }
  const text = what === "" ? `${words}` : `${words}: ${what}`;
  return text.length > SUMMARY_MAX ? `${text.slice(0, SUMMARY_MAX - 1)}…` : text;
}
