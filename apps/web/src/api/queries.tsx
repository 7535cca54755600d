/** Query definitions for TanStack Query: one key and fetcher per API resource. */
import { queryOptions } from "@tanstack/react-query";
import type { ApiClient } from "./client.tsx";
import type { ConsoleConfigView, MeView, RoleBinding, TokenView, UserView } from "./types.tsx";

/** GET /api/v1/config. */
export const configQuery = (api: ApiClient) =>
  queryOptions({
    queryKey: ["config"],
    queryFn: async () => {
      const c = await api.get<ConsoleConfigView>("/api/v1/config");
      api.useCsrfNames(c.auth.csrfCookie, c.auth.csrfHeader);
      return c;
    },
    staleTime: 60_000,
  });

/** GET /api/v1/auth/me; a 401 is an answer here (the route guard turns it into sign-in). */
export const meQuery = (api: ApiClient) =>
  queryOptions({
    queryKey: ["me"],
    queryFn: () => api.get<MeView>("/api/v1/auth/me", { expect401: true }),
    staleTime: 0,
    retry: false,
  });

/** GET /api/v1/users (local mode, users:manage). */
export const usersQuery = (api: ApiClient) =>
  queryOptions({
    queryKey: ["users"],
    queryFn: async () => (await api.get<{ users: UserView[] }>("/api/v1/users")).users,
  });

/** GET /api/v1/tokens (tokens:manage). */
export const tokensQuery = (api: ApiClient) =>
  queryOptions({
    queryKey: ["tokens"],
    queryFn: async () => (await api.get<{ tokens: TokenView[] }>("/api/v1/tokens")).tokens,
  });

/** GET /api/v1/rbac/bindings (rbac:manage). */
export const bindingsQuery = (api: ApiClient) =>
  queryOptions({
    queryKey: ["bindings"],
    queryFn: () =>
      api.get<{ bindings: RoleBinding[]; groupRoles: Record<string, string> }>("/api/v1/rbac/bindings"),
  });

/** GET /api/v1/rbac/roles (rbac:manage): built-in and custom role names. */
export const rolesQuery = (api: ApiClient) =>
  queryOptions({
    queryKey: ["roles"],
    queryFn: () =>
      api.get<{ builtin: Record<string, string[]>; custom: { name: string; permissions: string[] }[] }>(
        "/api/v1/rbac/roles",
      ),
  });

/** True when `me` holds `perm`. */
export function can(me: MeView | undefined, perm: string): boolean {
  return me?.permissions.includes(perm) ?? false;
}

/** Built-in role names in the order people read them (spec §5.3). */
export const BUILTIN_ROLES = ["viewer", "operator", "alert-editor", "admin"] as const;
