/** Sign-in, sign-out, the caller's identity and the OIDC round trip (spec §4.3, §5.4, §5.5, §5.7). */
import { z } from "zod";
import { errors } from "./errors.ts";
import { LAB_ADMIN_PASSWORD, route } from "./route.ts";
import { nameText, text } from "./strings.ts";

/** How the caller was identified. */
export const PrincipalKind = z.enum(["session", "header", "token", "anonymous"]);

/** GET /api/v1/auth/me, and the answer to a successful sign-in. */
export const MeView = z
  .object({
    subject: z.string(),
    displayName: z.string(),
    groups: z.array(z.string()),
    roles: z.array(z.string()),
    permissions: z.array(z.string()),
    via: PrincipalKind,
  })
  .meta({ id: "MeView" });
export type MeView = z.infer<typeof MeView>;

/** Local sign-in request. */
export const LoginBody = z.strictObject({ username: nameText(256), password: text(1024) });

/** Own password change request. */
export const PasswordChangeBody = z.strictObject({ currentPassword: text(1024), newPassword: text(1024) });

/** Path of local sign-in (the spec does not name it; the console's choice). */
export const LOGIN_PATH = "/api/v1/auth/login";
/** Path that begins an OIDC sign-in (spec §4.3: a path ending `/oidc/start`). */
export const OIDC_START_PATH = "/api/v1/auth/oidc/start";
/** Path of the OIDC redirect target (spec §4.3). */
export const OIDC_CALLBACK_PATH = "/api/v1/auth/oidc/callback";
/** Path of the own password change. */
export const PASSWORD_PATH = "/api/v1/auth/password";

export const getMe = route({
  name: "getMe",
  method: "GET",
  path: "/api/v1/auth/me",
  tag: "auth",
  summary: "The caller: subject, display name, groups, resolved roles and permissions, how identified",
  access: "caller",
  spec: true,
  responses: { 200: MeView, ...errors(401) },
});

export const logout = route({
  name: "logout",
  method: "POST",
  path: "/api/v1/auth/logout",
  tag: "auth",
  summary: "Deletes the session and clears the session and CSRF cookies; idempotent, all modes",
  access: "none",
  spec: true,
  responses: { 204: null },
});

export const login = route({
  name: "login",
  method: "POST",
  path: LOGIN_PATH,
  tag: "auth",
  summary: "Local sign-in: sets the session and CSRF cookies",
  description:
    "Local mode only (404 otherwise). Budgets per username and 20x per address (429 with Retry-After). " +
    "Audited, allowed or denied.",
  access: "none",
  spec: false,
  body: LoginBody,
  example: { username: "admin", password: LAB_ADMIN_PASSWORD },
  responses: { 200: MeView, ...errors(400, 401, 404, 429) },
});

export const changePassword = route({
  name: "changePassword",
  method: "POST",
  path: PASSWORD_PATH,
  tag: "auth",
  summary: "Changes the signed-in local user's own password; the user's other sessions end",
  description:
    "Only a signed-in local user's session (403 for tokens, header or anonymous callers); spends the sign-in " +
    "budget (429); 401 on a wrong current password; 422 when the new one is too short. Audited.",
  access: "caller",
  spec: false,
  body: PasswordChangeBody,
  example: { currentPassword: LAB_ADMIN_PASSWORD, newPassword: "a-new-long-admin-password" },
  responses: { 204: null, ...errors(400, 401, 403, 404, 422, 429) },
});

export const oidcStart = route({
  name: "oidcStart",
  method: "GET",
  path: OIDC_START_PATH,
  tag: "auth",
  summary: "Begins OIDC sign-in: 302 to the identity provider, sets the sealed state cookie (5 min)",
  description: "OIDC mode only (404 otherwise); per-address budget (429).",
  access: "none",
  spec: true,
  query: z.object({
    returnTo: text(2048).optional().describe("console path to come back to; anything else means /"),
  }),
  responses: { 302: null, ...errors(404, 429) },
});

export const oidcCallback = route({
  name: "oidcCallback",
  method: "GET",
  path: OIDC_CALLBACK_PATH,
  tag: "auth",
  summary: "OIDC redirect target: 302 to returnTo with the session and CSRF cookies",
  description:
    "OIDC mode only (404 otherwise). Refused: 401 (502 when the provider fails), audited as `error` rows " +
    "(at most 120 a minute per address); per-address budget (429).",
  access: "none",
  spec: true,
  query: z.looseObject({ code: z.string().optional(), state: z.string().optional() }),
  responses: { 302: null, ...errors(401, 404, 429, 502) },
});
