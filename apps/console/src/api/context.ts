/**
 * Per-request authentication state and the route guards built on it. The server's onRequest hook fills
 * `request.consoleAuth` and `request.clientAddr` before any handler runs.
 */
import type { FastifyRequest } from "fastify";
import type { AuthResult } from "../auth/authenticate.ts";
import type { Principal } from "../auth/principal.ts";
import { ForbiddenError, UnauthenticatedError } from "../errors.ts";
import type { Access } from "../rbac/resolve.ts";
import type { Permission } from "../rbac/roles.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** who is calling (set by the console's onRequest hook) */
    consoleAuth: AuthResult;
    /** client address after the X-Forwarded-For walk */
    clientAddr: string;
  }
}

/** Resolves a caller's access (roles and permissions); memoised per request by the server. */
export type AccessResolver = (req: FastifyRequest, p: Principal) => Promise<Access>;

/** The caller, or UnauthenticatedError (401). */
export function requireCaller(req: FastifyRequest): Principal {
  const { principal, problem } = req.consoleAuth;
  if (!principal) throw problem ?? new UnauthenticatedError();
  return principal;
}

/** The caller holding `perm`: 401 without a caller, 403 without the permission. */
export async function requirePermission(
  req: FastifyRequest,
  resolve: AccessResolver,
  perm: Permission,
): Promise<{ principal: Principal; access: Access }> {
  const principal = requireCaller(req);
  const access = await resolve(req, principal);
  if (!access.permissions.has(perm)) throw new ForbiddenError(`missing permission ${perm}`);
  return { principal, access };
}
