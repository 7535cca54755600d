/** TanStack Query definitions of the fleet API; fleet figures refresh every 10 s while a page shows them. */
import * as c from "@svc/contract";
import { queryOptions } from "@tanstack/react-query";
import { type ApiClient, ApiError } from "../../api/client.tsx";
import { UNFED_POLL_MS } from "../../live/use-pushed.tsx";
import type { FleetMatrixGrid, FleetProtocol, PairWindow } from "./types.ts";

/** How often live fleet pages refetch. */
export const FLEET_REFRESH_MS = 10_000;

/** Retry only what may pass on a second try: not 4xx, not a backend the console was configured without. */
export function fleetRetry(failures: number, e: unknown): boolean {
  if (e instanceof ApiError && (e.status < 500 || e.code.endsWith("_unconfigured"))) return false;
  return failures < 2;
}

const live = { refetchInterval: FLEET_REFRESH_MS, staleTime: 5_000, retry: fleetRetry } as const;
/** Under the Time Machine an answer never changes: no refetch. */
const past = { refetchInterval: false, staleTime: Number.POSITIVE_INFINITY, retry: fleetRetry } as const;
const timing = (at: string | undefined) => (at ? past : live);
/** Matrix and Topology: pushed while fed (no polling), else polled every 15 s (spec §6.2). */
const pushedTiming = (at: string | undefined, fed: boolean) =>
  at
    ? past
    : { refetchInterval: fed ? (false as const) : UNFED_POLL_MS, staleTime: 5_000, retry: fleetRetry };
const atQuery = (at: string | undefined) => (at ? { at } : {});

/** GET /api/v1/fleet/matrix?protocol=. */
export const matrixQuery = (api: ApiClient, protocol: FleetProtocol, at?: string, fed = false) =>
  queryOptions({
    queryKey: ["fleet", "matrix", protocol, at ?? "live"],
    // the grid layout: one letter per pair, full cells only where figures say more (500 nodes: ~0.5 MiB, not 19)
    queryFn: async (): Promise<FleetMatrixGrid> => {
      const m = await api.call(c.getMatrix, { query: { protocol, layout: "grid", ...atQuery(at) } });
      if (!("tiers" in m)) throw new ApiError(200, "bad_answer", "the matrix came without its grid layout");
      return m;
    },
    ...pushedTiming(at, fed),
  });

/** GET /api/v1/fleet/topology. */
export const topologyQuery = (api: ApiClient, at?: string, fed = false) =>
  queryOptions({
    queryKey: ["fleet", "topology", at ?? "live"],
    queryFn: () => api.call(c.getTopology, { query: atQuery(at) }),
    ...pushedTiming(at, fed),
  });

/** GET /api/v1/fleet/nodes/:name?protocol=. */
export const nodeQuery = (api: ApiClient, name: string, protocol: FleetProtocol, at?: string) =>
  queryOptions({
    queryKey: ["fleet", "node", name, protocol, at ?? "live"],
    queryFn: () => api.call(c.getNode, { params: { name }, query: { protocol, ...atQuery(at) } }),
    ...timing(at),
  });

/** Chart windows of the Pair page. */
export const WINDOWS: readonly PairWindow[] = ["15m", "1h", "6h", "24h"];

/** GET /api/v1/fleet/pairs/:source/:destination?window=. */
export const pairQuery = (
  api: ApiClient,
  source: string,
  destination: string,
  window: PairWindow,
  at?: string,
) =>
  queryOptions({
    queryKey: ["fleet", "pair", source, destination, window, at ?? "live"],
    queryFn: () =>
      api.call(c.getPair, { params: { source, destination }, query: { window, ...atQuery(at) } }),
    ...timing(at),
  });

/** GET /api/v1/fleet/overview. */
export const overviewQuery = (api: ApiClient, at?: string) =>
  queryOptions({
    queryKey: ["fleet", "overview", at ?? "live"],
    queryFn: () => api.call(c.getOverview, { query: atQuery(at) }),
    ...timing(at),
  });

/** How often the live suspects refetch: they follow the matrices within seconds. */
export const SUSPECTS_REFRESH_MS = 3_000;

/** GET /api/v1/fleet/suspects: now, as of `at`, or over a window (`from`/`to`). */
export const suspectsQuery = (api: ApiClient, at?: string, window?: { from: string; to: string }) =>
  queryOptions({
    queryKey: ["fleet", "suspects", at ?? "live", window?.from ?? "", window?.to ?? ""],
    queryFn: () => api.call(c.getSuspects, { query: window ? { ...window } : atQuery(at) }),
    ...(at || window ? past : { refetchInterval: SUSPECTS_REFRESH_MS, staleTime: 2_000, retry: fleetRetry }),
  });
