import assert from "node:assert/strict";
import { test } from "node:test";
import type { Principal } from "../auth/principal.ts";
import { permissionsOf, resolveAccess } from "./resolve.ts";
import { PERMISSIONS } from "./roles.ts";

const policy = { anonymousRole: "viewer", defaultRole: "", groupRoles: { sre: "admin", ops: "operator" } };
const b = (subject: string, role: string) => ({
  id: subject + role,
  subject,
  role,
  direct: false,
  createdAt: 0,
});
const who = (kind: Principal["kind"], subject: string, groups: string[] = []): Principal => ({
  kind,
  subject,
  display: subject,
  groups,
});

test("built-in roles grant exactly the spec's sets", () => {
  const viewer = permissionsOf(["viewer"], []);
  for (const held of ["targets:read", "checks:read", "audit:read", "runs:create", "users:manage"]) {
    assert.ok(!viewer.has(held as never), `viewer must not hold ${held}`);
  }
  const op = permissionsOf(["operator"], []);
  assert.ok(op.has("runs:create") && op.has("targets:read") && op.has("checks:read"));
  for (const held of [
    "audit:read",
    "settings:write",
    "users:manage",
    "webhooks:manage",
    "tokens:manage",
    "rbac:manage",
  ]) {
    assert.ok(!op.has(held as never), `operator must not hold ${held}`);
  }
  const ae = permissionsOf(["alert-editor"], []);
  assert.ok(
    ae.has("alerts:manage") && ae.has("runs:create") && !ae.has("targets:read") && !ae.has("checks:read"),
  );
  assert.equal(permissionsOf(["admin"], []).size, PERMISSIONS.length);
});

test("roles are the union of groupRoles, bindings, else defaultRole", () => {
  assert.deepEqual(
    resolveAccess(who("header", "header:a", ["ops"]), policy, [b("header:a", "alert-editor")], []).roles,
    ["alert-editor", "operator"],
  );
  assert.deepEqual(
    resolveAccess(who("header", "header:a", ["x"]), policy, [b("group:x", "viewer")], []).roles,
    ["viewer"],
  );
  assert.deepEqual(resolveAccess(who("header", "header:a"), policy, [], []).roles, []);
  assert.deepEqual(
    resolveAccess(who("header", "header:a"), { ...policy, defaultRole: "viewer" }, [], []).roles,
    ["viewer"],
  );
  assert.deepEqual(resolveAccess(who("anonymous", ""), policy, [], []).roles, ["viewer"]);
  // a token holds exactly defaultRole, whatever is bound to it
  assert.deepEqual(resolveAccess(who("token", "token:1"), policy, [b("token:1", "admin")], []).roles, []);
  const custom = [{ name: "auditor", permissions: ["audit:read", "no:such"], createdAt: 0 }];
  assert.deepEqual(
    [...resolveAccess(who("session", "local:1"), policy, [b("local:1", "auditor")], custom).permissions],
    ["audit:read"],
  );
});

test("a group named like an inherited property resolves no role (own keys of groupRoles only)", () => {
  for (const g of ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"]) {
    const a = resolveAccess(who("header", "header:mallory", [g]), policy, [], []);
    assert.deepEqual(a.roles, [], `group ${g}`);
    assert.equal(a.permissions.size, 0, `group ${g}`);
  }
  const withDefault = resolveAccess(
    who("header", "header:m", ["constructor"]),
    { ...policy, defaultRole: "viewer" },
    [],
    [],
  );
  assert.deepEqual(
    withDefault.roles,
    ["viewer"],
    "nothing matched: the default role, as for any unknown group",
  );
  assert.deepEqual(resolveAccess(who("header", "header:s", ["sre", "toString"]), policy, [], []).roles, [
    "admin",
  ]);
});
