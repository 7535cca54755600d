/** Query definitions for TanStack Query: one key and fetcher per API resource. */

import * as c from "@svc/contract";
import { queryOptions } from "@tanstack/react-query";
import type { ApiClient } from "./client.tsx";
import type { MeView } from "./types.tsx";

/** GET /api/v1/config. */
export const configQuery = (api: ApiClient) =>
  queryOptions({
    queryKey: ["config"],
    queryFn: async () => {
      const cfg = await api.call(c.getConfig);
      api.useCsrfNames(cfg.auth.csrfCookie, cfg.auth.csrfHeader);
      return cfg;
    },
    staleTime: 60_000,
  });

/** GET /api/v1/auth/me; a 401 is an answer here (the route guard turns it into sign-in). */
export const meQuery = (api: ApiClient) =>
  queryOptions({
    queryKey: ["me"],
    queryFn: () => api.call(c.getMe, {}, { expect401: true }),
    staleTime: 0,
    retry: false,
  });

/** GET /api/v1/users (local mode, users:manage). */
export const usersQuery = (api: ApiClient) =>
  queryOptions({
    queryKey: ["users"],
    queryFn: async () => (await api.call(c.listUsers)).users,
  });

/** GET /api/v1/tokens (tokens:manage). */
export const tokensQuery = (api: ApiClient) =>
  queryOptions({
    queryKey: ["tokens"],
    queryFn: async () => (await api.call(c.listTokens)).tokens,
  });

/** GET /api/v1/rbac/bindings (rbac:manage). */
export const bindingsQuery = (api: ApiClient) =>
  queryOptions({
    queryKey: ["bindings"],
    queryFn: () => api.call(c.listBindings),
  });

/** GET /api/v1/rbac/roles (rbac:manage): built-in and custom role names. */
export const rolesQuery = (api: ApiClient) =>
  queryOptions({
    queryKey: ["roles"],
    queryFn: () => api.call(c.listRoles),
  });

/** True when `me` holds `perm`. */
export function can(me: MeView | undefined, perm: string): boolean {
  return me?.permissions.includes(perm) ?? false;
}

/** Built-in role names in the order people read them (spec §5.3). */
export const BUILTIN_ROLES = c.BUILTIN_ROLES;
