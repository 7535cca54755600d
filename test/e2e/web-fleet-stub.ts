// Chromium request interception for the fleet page tests: answers /api/v1/fleet/* from testdata/fleet-fixtures.ts
// ("ok"), or with the degraded backends' errors ("degraded": 503 metrics_unconfigured, topology 502). Test-only.

import { toGrid } from "@svc/matrix-grid";
import type { Page, Route } from "playwright-core";
import {
  matrixFixture,
  nodeFixture,
  overviewFixture,
  pairFixture,
  topologyFixture,
} from "./testdata/fleet-fixtures.ts";

type Protocol = "tcp" | "udp" | "icmp" | "pmtu";

const json = (route: Route, status: number, body: unknown) =>
  route.fulfill({ status, contentType: "application/json", body: JSON.stringify(body) });
const error = (route: Route, status: number, code: string, message: string) =>
  json(route, status, { error: { code, message } });

/** Installs the stub on a page; returns the bodies POSTed to /api/v1/fleet/check. */
export async function stubFleet(page: Page, mode: "ok" | "degraded"): Promise<unknown[]> {
  const checks: unknown[] = [];
  await page.route(/\/api\/v1\/fleet\//, async (route) => {
    const url = new URL(route.request().url());
    const parts = url.pathname.split("/").slice(4).map(decodeURIComponent); // after /api/v1/fleet/
    const protocol = (url.searchParams.get("protocol") ?? "tcp") as Protocol;
    if (mode === "degraded") {
      if (parts[0] === "topology") return error(route, 502, "controller_unreachable", "connect ECONNREFUSED");
      return error(route, 503, "metrics_unconfigured", "metrics server not configured");
    }
    switch (parts[0]) {
      case "matrix": {
        const m = matrixFixture(protocol);
        return json(route, 200, url.searchParams.get("layout") === "grid" ? toGrid(m) : m);
      }
      case "topology":
        return json(route, 200, topologyFixture());
      case "overview":
        return json(route, 200, overviewFixture());
      case "nodes":
        if (parts[1] === "ghost") return error(route, 404, "unknown_node", "no node named ghost");
        return json(route, 200, { ...nodeFixture(protocol), name: parts[1] });
      case "pairs":
        return json(route, 200, { ...pairFixture(), source: parts[1], destination: parts[2] });
      case "check": {
        const body = route.request().postDataJSON() as { source: string; destination: string };
        checks.push(body);
        return json(route, 200, {
          type: "tcp",
          success: true,
          source: body.source,
          destination: body.destination,
          duration: 1_250_000,
        });
      }
      default:
        return error(route, 404, "not_found", "not found");
    }
  });
  return checks;
}
