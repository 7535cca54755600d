/**
 * @svc/contract: the console's HTTP + WebSocket contract. Imports only zod, so the web app bundles it.
 * Server: registers handlers against these declarations. Web app: `ApiClient.call(declaration, ...)`.
 * Generated from it: GET /api/v1/openapi.json, packages/contract/openapi.json and docs/console-api.md.
 */
export * from "./alert-rules.ts";
export * from "./annotations.ts";
export * from "./auth.ts";
export * from "./checks.ts";
export * from "./config-bundle.ts";
export * from "./console-config.ts";
export { renderApiDocs, typeText } from "./docs.ts";
export { consoleApiDocument, consoleApiMarkdown } from "./document.ts";
export * from "./errors.ts";
export * from "./events.ts";
export * from "./fleet.ts";
export * from "./incidents.ts";
export * from "./investigation-kinds.ts";
export * from "./maintenance.ts";
export * from "./metrics-queries.ts";
export * from "./mtr.ts";
export { buildOpenApi, type OpenApiDocument } from "./openapi.ts";
export * from "./permissions.ts";
export * from "./probes.ts";
export * from "./rbac.ts";
export * from "./route.ts";
export { routes } from "./routes.ts";
export * from "./runs.ts";
export * from "./schedules.ts";
export * from "./strings.ts";
export * from "./suspects.ts";
export * from "./targets.ts";
export * from "./tokens.ts";
export * from "./users.ts";
export * from "./webhooks.ts";
export * from "./ws.ts";
