/**
 * What every route and component reaches: the API client, the query cache and the tab's one WebSocket (no
 * module-level state).
 */
import type { QueryClient } from "@tanstack/react-query";
import { createContext, useContext } from "react";
import type { ApiClient } from "./api/client.tsx";
import type { LiveSocket } from "./live/live-socket.ts";

/** Router context and React context share this shape. */
export interface AppContext {
  api: ApiClient;
  queryClient: QueryClient;
  live: LiveSocket;
}

/** React context of the app; provided by main.tsx. */
export const AppCtx = createContext<AppContext | null>(null);

/** The app context; throws outside the provider (a wiring bug). */
export function useApp(): AppContext {
  const c = useContext(AppCtx);
  if (!c) throw new Error("useApp outside AppCtx provider");
  return c;
}

/** A return path that stays inside the app: starts with one "/", never "//" (no open redirect). */
export function safeNext(next: unknown): string {
  if (typeof next !== "string" || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\"))
    return "/";
  if (next.startsWith("/sign-in")) return "/";
  return next;
}

/** The auth mode index.html was served with (`<meta name="svc-auth-mode">`), or "" when absent. */
export function servedAuthMode(): string {
  return document.querySelector('meta[name="svc-auth-mode"]')?.getAttribute("content") ?? "";
}
