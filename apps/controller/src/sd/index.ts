export * from "./discovery.ts";
export * from "./scrape-sd-routes.ts";
