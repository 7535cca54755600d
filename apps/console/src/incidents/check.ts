/**
 * What Save as incident, a notes edit and a pin accept beyond their shape (422 each, spec §2.9, §3.1, §7): notes and
 * pin notes keep line breaks (LF, CR) and tabs and refuse any other control character (C0, DEL, C1); a title is one
 * line (no control character at all) and not blank; a window ends after it starts; pair, node and target kinds need
 * their scope (a pair written `<source>-><destination>`); zone-pair, cluster and global save as global with no scope;
 * maintenance windows, threshold crossings and firing alerts cannot be pinned.
 */
import {
  type IncidentInput,
  type IncidentScopeKind,
  isPinnable,
  type PinInput,
  timelineBadge,
} from "@svc/contract";
import { UnprocessableError } from "../errors.ts";

/** A C0 control, DEL or a C1 control. */
const isControl = (c: number) => c < 0x20 || (c >= 0x7f && c <= 0x9f);
/** True when `s` holds a control character; `keepBreaks` lets line feed, carriage return and tab through. */
function hasControl(s: string, keepBreaks: boolean): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isControl(c) && !(keepBreaks && (c === 0x09 || c === 0x0a || c === 0x0d))) return true;
  }
  return false;
}

/** 422 unless `s` holds no control character other than line breaks and tabs. */
export function checkNotes(key: string, s: string): string {
  if (hasControl(s, true))
    throw new UnprocessableError(
      `${key} must not contain control characters other than line breaks and tabs`,
    );
  return s;
}

/** An incident as stored from a valid Save as incident. */
export interface CheckedIncident {
  kind: IncidentScopeKind;
  scope: string;
  from: number;
  to: number;
  title: string;
  notes: string;
}

/** The input as stored, or a 422. */
export function checkIncident(input: IncidentInput): CheckedIncident {
  const title = input.title.trim();
  if (title === "") throw new UnprocessableError("title must not be blank");
  if (hasControl(title, false)) throw new UnprocessableError("title must not contain control characters");
  const notes = checkNotes("notes", input.notes);
  const from = Date.parse(input.from);
  const to = Date.parse(input.to);
  if (to <= from) throw new UnprocessableError("to must be after from");
  const kind: IncidentScopeKind =
    input.kind === "pair" || input.kind === "node" || input.kind === "target" ? input.kind : "global";
  const scope = kind === "global" ? "" : input.scope.trim();
  if (kind !== "global" && scope === "") throw new UnprocessableError(`scope is required for kind ${kind}`);
  if (kind === "pair" && !/^[^\s>]+ *-> *[^\s>]+$/.test(scope))
    throw new UnprocessableError("a pair scope is written <source>-><destination>");
  if (hasControl(scope, false)) throw new UnprocessableError("scope must not contain control characters");
  for (const [i, p] of input.pins.entries()) checkPin(p, `pins.${i}`);
  return { kind, scope: kind === "pair" ? scope.replace(/ *-> */, "->") : scope, from, to, title, notes };
}

/** The pin as given, or a 422. */
export function checkPin(p: PinInput, key = "pin"): PinInput {
  if (!isPinnable(p.kind))
    throw new UnprocessableError(`${key}: ${timelineBadge(p.kind)} rows cannot be pinned (${p.kind})`);
  checkNotes(`${key}.note`, p.note);
  return p;
}
