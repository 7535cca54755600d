/**
 * The request/response types the console's HTTP API answers with, gathered in one place for the web app
 * (apps/web imports them with `import type`, so nothing of the server reaches the browser bundle).
 */
export type { MeView } from "../api/auth-routes.ts";
export type { ConsoleConfigView } from "../api/config-route.ts";
export type { ErrorBody } from "../api/error-handler.ts";
export type * from "../api/fleet-types.ts";
export type { CustomRole, RoleBinding } from "../store/store.ts";
export type { MintedToken, TokenState, TokenView } from "../tokens/token-admin.ts";
export type { UserView } from "../users/user-admin.ts";
export type { FleetMatrixGrid } from "./matrix-grid.ts";
