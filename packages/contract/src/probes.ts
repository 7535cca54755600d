/** Liveness, readiness and metrics (served on both the API and the metrics listener), and this document. */
import { z } from "zod";
import { route } from "./route.ts";

const TEXT = "text/plain; charset=utf-8";

export const healthz = route({
  name: "healthz",
  method: "GET",
  path: "/healthz",
  tag: "probes",
  summary: "Liveness: `ok` while serving (both listeners)",
  access: "none",
  spec: false,
  responses: { 200: { contentType: TEXT, description: "ok" } },
});

export const readyz = route({
  name: "readyz",
  method: "GET",
  path: "/readyz",
  tag: "probes",
  summary: "Readiness: 503 until the store is migrated and answers within 2 s (both listeners)",
  access: "none",
  spec: false,
  responses: {
    200: { contentType: TEXT, description: "ok" },
    503: { contentType: TEXT, description: "console store not ready" },
  },
});

export const metrics = route({
  name: "metrics",
  method: "GET",
  path: "/metrics",
  tag: "probes",
  summary: "Prometheus exposition of the console's own metrics (both listeners)",
  access: "none",
  spec: false,
  responses: { 200: { contentType: "text/plain; version=0.0.4; charset=utf-8", description: "exposition" } },
});

export const getOpenApi = route({
  name: "getOpenApi",
  method: "GET",
  path: "/api/v1/openapi.json",
  tag: "meta",
  summary: "This API as an OpenAPI 3.1 document, generated from the contract",
  access: "none",
  spec: false,
  responses: { 200: z.record(z.string(), z.unknown()) },
});
