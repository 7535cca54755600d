/**
 * `/api/v1/users...` (spec §4.3, §5.5): local user management, `users:manage`, 404 for everyone unless
 * `auth.mode` is local. Sub-paths and bodies are the console's (the spec leaves them open).
 */
import { z } from "zod";
import { errors } from "./errors.ts";
import { route } from "./route.ts";
import { nameText, text } from "./strings.ts";

/** A local user as the API shows it (never the password hash). */
export const UserView = z
  .object({
    id: z.string(),
    username: z.string(),
    role: z.string().describe('the one direct role ("" when none)'),
    enabled: z.boolean(),
    createdAt: z.number().describe("epoch milliseconds"),
  })
  .meta({ id: "UserView" });
export type UserView = z.infer<typeof UserView>;

/** Path parameters naming a user; anything but a user id is answered 404. */
export const UserIdParams = z.object({ id: z.string().regex(/^[0-9a-f-]{36}$/, "not a user id") });

const MODE = "Local mode only (404 for everyone otherwise).";

export const listUsers = route({
  name: "listUsers",
  method: "GET",
  path: "/api/v1/users",
  tag: "users",
  summary: "Local users",
  description: MODE,
  access: "users:manage",
  spec: true,
  responses: { 200: z.object({ users: z.array(UserView) }), ...errors(403, 404) },
});

export const createUser = route({
  name: "createUser",
  method: "POST",
  path: "/api/v1/users",
  tag: "users",
  summary: "Creates a local user with one direct role",
  description: `${MODE} 409 when the username is taken; 422 for a short password or an unknown role.`,
  access: "users:manage",
  spec: true,
  body: z.strictObject({ username: nameText(256), password: text(1024), role: nameText(128) }),
  example: { username: "alice", password: "alice-long-password", role: "operator" },
  responses: { 201: UserView, ...errors(400, 403, 404, 409, 422) },
});

export const setUserRole = route({
  name: "setUserRole",
  method: "PUT",
  path: "/api/v1/users/{id}/role",
  tag: "users",
  summary: "Replaces a user's direct role",
  description: `${MODE} 409 when it would leave no administrator.`,
  access: "users:manage",
  spec: true,
  params: UserIdParams,
  body: z.strictObject({ role: nameText(128) }),
  example: { role: "viewer" },
  responses: { 200: UserView, ...errors(400, 403, 404, 409, 422) },
});

export const disableUser = route({
  name: "disableUser",
  method: "POST",
  path: "/api/v1/users/{id}/disable",
  tag: "users",
  summary: "Disables a user: sessions end, tokens stop working",
  description: `${MODE} 409 for the last administrator; 502 \`tokens unavailable\` when the user's tokens cannot be updated.`,
  access: "users:manage",
  spec: true,
  params: UserIdParams,
  responses: { 204: null, ...errors(403, 404, 409, 502) },
});

export const enableUser = route({
  name: "enableUser",
  method: "POST",
  path: "/api/v1/users/{id}/enable",
  tag: "users",
  summary: "Enables a disabled user",
  description: `${MODE} 502 \`tokens unavailable\` (the user stays disabled).`,
  access: "users:manage",
  spec: true,
  params: UserIdParams,
  responses: { 204: null, ...errors(403, 404, 502) },
});

export const deleteUser = route({
  name: "deleteUser",
  method: "DELETE",
  path: "/api/v1/users/{id}",
  tag: "users",
  summary: "Deletes a user",
  description: `${MODE} 409 for the last administrator; 502 \`tokens unavailable\`.`,
  access: "users:manage",
  spec: true,
  params: UserIdParams,
  responses: { 204: null, ...errors(403, 404, 409, 502) },
});

export const resetUserPassword = route({
  name: "resetUserPassword",
  method: "PUT",
  path: "/api/v1/users/{id}/password",
  tag: "users",
  summary: "Resets a user's password; all the user's sessions end",
  description: `${MODE} 422 for a short password.`,
  access: "users:manage",
  spec: true,
  params: UserIdParams,
  body: z.strictObject({ password: text(1024) }),
  example: { password: "alice-new-long-password" },
  responses: { 204: null, ...errors(400, 403, 404, 422) },
});
