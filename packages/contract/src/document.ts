/** The console's OpenAPI document and its markdown page, as served and as committed. */
import { renderApiDocs } from "./docs.ts";
import { buildOpenApi, type OpenApiDocument } from "./openapi.ts";
import { routes } from "./routes.ts";
import { WsClientMessage, WsServerMessage } from "./ws.ts";

/** The OpenAPI document of this console version. */
export function consoleApiDocument(version: string): OpenApiDocument {
  return buildOpenApi(routes, { title: "svc console", version }, [WsClientMessage, WsServerMessage]);
}

/** docs/console-api.md for this console version. */
export function consoleApiMarkdown(version: string): string {
  return renderApiDocs(consoleApiDocument(version), ["WsClientMessage", "WsServerMessage"]);
}
