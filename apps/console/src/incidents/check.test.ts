/**
 * What Save as incident, notes and pins accept beyond their shape (422), and the list cursor: a control character
 * other than LF, CR or tab in notes is refused (C0, DEL, C1, NUL), a title is one line, zone-pair and cluster save
 * as global with no scope, a pair is written source->destination, unpinnable kinds are refused by their badge
 * word; a cursor round-trips and anything this console did not issue is 400.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { INCIDENT_EXAMPLE, IncidentInput, PIN_EXAMPLE, PinInput, UNPINNABLE_KINDS } from "@svc/contract";
import { InvalidInputError, UnprocessableError } from "../errors.ts";
import { checkIncident, checkNotes, checkPin } from "./check.ts";
import { decodeIncidentCursor, encodeIncidentCursor } from "./cursor.ts";

const input = (over: Record<string, unknown>) => IncidentInput.parse({ ...INCIDENT_EXAMPLE, ...over });

test("notes keep line breaks and tabs; every other control character is 422", () => {
  assert.equal(checkNotes("notes", "a\r\n\tb\nc"), "a\r\n\tb\nc");
  for (let c = 0; c <= 0x9f; c++) {
    const s = `x${String.fromCharCode(c)}y`;
    const control = c < 0x20 || c >= 0x7f;
    const kept = c === 0x09 || c === 0x0a || c === 0x0d;
    if (control && !kept)
      assert.throws(() => checkNotes("notes", s), UnprocessableError, `U+${c.toString(16)}`);
    else assert.equal(checkNotes("notes", s), s);
  }
  assert.equal(
    checkNotes("notes", "ünïcödé ✓ \u00a0"),
    "ünïcödé ✓ \u00a0",
    "no-break space is not a control",
  );
});

test("Save as incident: kinds, scopes, title, window", () => {
  for (const kind of ["zone-pair", "cluster", "global"])
    assert.deepEqual(
      [
        checkIncident(input({ kind, scope: "z1->z2" })).kind,
        checkIncident(input({ kind, scope: "z1->z2" })).scope,
      ],
      ["global", ""],
    );
  assert.equal(checkIncident(input({ kind: "pair", scope: " a -> b " })).scope, "a->b");
  assert.equal(checkIncident(input({ title: "  padded  " })).title, "padded");
  for (const bad of [
    { kind: "pair", scope: "a" },
    { kind: "pair", scope: "a->" },
    { kind: "target", scope: " " },
    { title: "tab\there" },
    { title: "" },
    { to: INCIDENT_EXAMPLE.from },
    { notes: "\u001b[2J" },
    { pins: [{ ...PIN_EXAMPLE, note: "\u0000" }] },
  ])
    assert.throws(() => checkIncident(input(bad)), UnprocessableError, JSON.stringify(bad));
});

test("pins: maintenance windows, threshold crossings and firing alerts are refused by badge word", () => {
  assert.deepEqual([...UNPINNABLE_KINDS], ["maintenance-window", "threshold-crossing", "firing-alert"]);
  for (const kind of UNPINNABLE_KINDS)
    assert.throws(() => checkPin(PinInput.parse({ ...PIN_EXAMPLE, kind })), /rows cannot be pinned/);
  assert.throws(() => checkPin(PinInput.parse({ ...PIN_EXAMPLE, kind: "firing-alert" })), {
    message: "pin: Alert rows cannot be pinned (firing-alert)",
  });
  for (const kind of [
    "fleet-event",
    "k8s-event",
    "audit-row",
    "annotation",
    "diagnostic-run",
    "mtr-path-change",
  ])
    assert.equal(checkPin(PinInput.parse({ ...PIN_EXAMPLE, kind })).kind, kind);
  assert.equal(PinInput.safeParse({ ...PIN_EXAMPLE, kind: "__proto__" }).success, false);
});

test("cursor: round trip; anything else is 400", () => {
  const key = { openedAt: 1_767_225_600_000, id: "0b7f3c1e-8d7a-4c55-9e2a-3b1f4c5d6e7f" };
  assert.deepEqual(decodeIncidentCursor(encodeIncidentCursor(key)), key);
  for (const bad of [
    "",
    "bm9wZQ",
    Buffer.from("12:abc:def").toString("base64url"),
    Buffer.from("99999999999999999:ab").toString("base64url"),
    `${encodeIncidentCursor(key)}=`,
    Buffer.from("-1:ab").toString("base64url"),
  ])
    assert.throws(() => decodeIncidentCursor(bad), InvalidInputError, bad);
});
