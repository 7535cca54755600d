/** Entry: builds the API client, query cache and router, and mounts the app. */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { RouterProvider } from "@tanstack/react-router";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { ApiClient, ApiError } from "./api/client.tsx";
import { type AppContext, AppCtx } from "./context.tsx";
import { browserSocket } from "./live/browser-socket.ts";
import { LiveSocket, socketUrl } from "./live/live-socket.ts";
import { makeRouter } from "./router.tsx";
import "./styles.css";

function start(): void {
  const el = document.getElementById("root");
  if (!el) throw new Error("no #root element");
  const queryClient = new QueryClient({
    defaultOptions: {
      queries: {
        retry: (n, e) => !(e instanceof ApiError && e.status >= 400 && e.status < 500) && n < 2,
        refetchOnWindowFocus: true,
      },
    },
  });
  const api = new ApiClient({
    onUnauthorized: () => {
      const here = window.location.pathname + window.location.search;
      if (window.location.pathname === "/sign-in") return;
      queryClient.removeQueries({ queryKey: ["me"] });
      void router.navigate({ to: "/sign-in", search: { next: here } });
    },
  });
  const live = new LiveSocket({
    open: () => browserSocket(socketUrl(window.location)),
    timers: {
      setTimeout: (fn, ms) => window.setTimeout(fn, ms),
      clearTimeout: (h) => window.clearTimeout(h as number),
    },
  });
  const context: AppContext = { api, queryClient, live };
  const router = makeRouter(context);
  createRoot(el).render(
    <StrictMode>
      <AppCtx.Provider value={context}>
        <QueryClientProvider client={queryClient}>
          <RouterProvider router={router} />
        </QueryClientProvider>
      </AppCtx.Provider>
    </StrictMode>,
  );
}

start();
