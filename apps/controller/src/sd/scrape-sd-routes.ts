import type { FastifyInstance, HTTPMethods } from "fastify";
import { installErrorHandler, leaderOnly } from "../api/error-handler.ts";
import { MethodNotAllowedError } from "../errors.ts";
import type { DiscoveryList } from "./discovery.ts";

/** Path of the discovery list (spec §4.2). */
export const SCRAPE_SD_PATH = "/api/v1/scrape/sd";

export interface ScrapeSdDeps {
  discovery: DiscoveryList;
  isLeader: () => boolean;
  /** `controller.prometheusSD.enabled`, read once (the key needs a restart) */
  enabled: boolean;
}

/**
 * Mounts GET /api/v1/scrape/sd on `app` (spec §4.2 rules 4-7). Call it for the HTTP app and for the metrics app
 * with the same deps. Disabled: no route at all, so every method gets fastify's 404. Enabled: GET answers the
 * groups as JSON with `Cache-Control: no-store` (503 `not the leader` as text/plain on a standby); every other
 * method (HEAD included) answers 405 with `Allow: GET`, decided before leadership and before any body is read.
 * Refusals are thrown and answered by api/error-handler.ts.
 */
export function registerScrapeSdRoutes(app: FastifyInstance, deps: ScrapeSdDeps): void {
  if (!deps.enabled) return;
  installErrorHandler(app);
  app.route({
    method: "GET",
    url: SCRAPE_SD_PATH,
    exposeHeadRoute: false,
    preHandler: leaderOnly(deps.isLeader),
    handler: async (_req, reply) => {
      return reply
        .code(200)
        .header("cache-control", "no-store")
        .type("application/json")
        .send(JSON.stringify(deps.discovery.groups()));
    },
  });
  app.route({
    method: app.supportedMethods.filter((m) => m !== "GET") as HTTPMethods[],
    url: SCRAPE_SD_PATH,
    onRequest: async () => {
      throw new MethodNotAllowedError(["GET"]);
    },
    handler: async () => undefined,
  });
}
