/**
 * The OpenAPI 3.1 document of the console, generated from the route declarations. Schemas that carry an id
 * (`.meta({ id })`) become components; everything else is inlined where used. Deterministic: the same
 * declarations give the same document, byte for byte once serialized.
 */
import { z } from "zod";
import { isTextResponse, type RouteSpec } from "./route.ts";

/** A JSON value. */
type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

/** The generated document (plain JSON). */
export type OpenApiDocument = JsonObject;

const STATUS_TEXT: Readonly<Record<number, string>> = {
  101: "Switching Protocols",
  200: "OK",
  201: "Created",
  204: "No Content",
  302: "Found (redirect)",
  400: "Malformed input",
  401: "No valid credentials",
  403: "Missing permission or CSRF token",
  404: "Not found",
  409: "Conflict with current state",
  413: "Body too large",
  422: "Input that cannot be applied",
  429: "Budget spent (Retry-After)",
  501: "Not implemented by the source agent",
  502: "Upstream failed",
  503: "Unavailable",
  504: "Upstream timed out",
};

const COMPONENT_PREFIX = "#/components/schemas/";

class SchemaSet {
  readonly components: Record<string, JsonObject> = {};

  /** The JSON Schema of `schema` for requests (`input`) or responses (`output`), ids moved to components. */
  convert(schema: z.ZodType, io: "input" | "output"): JsonObject {
    const raw = z.toJSONSchema(schema, {
      io,
      unrepresentable: "throw",
      reused: "inline",
      cycles: "ref",
    }) as JsonObject;
    const defs = (raw.$defs ?? {}) as Record<string, JsonObject>;
    delete raw.$defs;
    delete raw.$schema;
    for (const [id, def] of Object.entries(defs)) this.place(id, rewrite(def) as JsonObject);
    return rewrite(raw) as JsonObject;
  }

  /** Stores component `id`; one id must convert to one schema wherever it is used. */
  private place(id: string, body: JsonObject): void {
    const have = this.components[id];
    if (have !== undefined && JSON.stringify(have) !== JSON.stringify(body)) {
      throw new Error(
        `schema id ${id} converts to two different schemas (its request and response forms differ?): ` +
          "give the request form its own id",
      );
    }
    this.components[id] = body;
  }
}

/** `#/$defs/<id>` references (zod's) as component references. */
function rewrite(v: Json): Json {
  if (Array.isArray(v)) return v.map(rewrite);
  if (v === null || typeof v !== "object") return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) {
    out[k] =
      k === "$ref" && typeof x === "string" && x.startsWith("#/$defs/")
        ? `${COMPONENT_PREFIX}${x.slice("#/$defs/".length)}`
        : rewrite(x);
  }
  return out;
}

function accessText(r: RouteSpec): string {
  switch (r.access) {
    case "none":
      return "no caller needed";
    case "caller":
      return "any caller (session, header identity, token or anonymous)";
    case "role":
      return "any caller holding a role (telemetry read)";
    default:
      return `permission \`${r.access}\``;
  }
}

function parameters(r: RouteSpec, set: SchemaSet): JsonObject[] {
  const out: JsonObject[] = [];
  for (const [where, obj] of [
    ["path", r.params],
    ["query", r.query],
  ] as const) {
    if (!obj) continue;
    for (const [name, field] of Object.entries(obj.shape as Record<string, z.ZodType>)) {
      const schema = set.convert(field, "input");
      const required = where === "path" || !field.safeParse(undefined).success;
      const p: JsonObject = { name, in: where, required, schema };
      const description = field.description;
      if (description !== undefined) p.description = description;
      out.push(p);
    }
  }
  return out;
}

function operation(r: RouteSpec, set: SchemaSet): JsonObject {
  const description = [r.description, `Access: ${accessText(r)}.`, r.spec ? "Path named by the spec." : ""]
    .filter((s) => s)
    .join("\n\n");
  const op: JsonObject = {
    operationId: r.name,
    tags: [r.tag],
    summary: r.summary,
    description,
    "x-permission": r.access,
  };
  const params = parameters(r, set);
  if (params.length > 0) op.parameters = params;
  if (r.body) {
    op.requestBody = {
      required: true,
      content: {
        "application/json": {
          schema: set.convert(r.body, "input"),
          ...(r.example === undefined ? {} : { example: r.example as Json }),
        },
      },
    };
  }
  const responses: JsonObject = {};
  for (const status of Object.keys(r.responses)
    .map(Number)
    .sort((a, b) => a - b)) {
    const spec = r.responses[status] ?? null;
    const description = STATUS_TEXT[status] ?? `HTTP ${status}`;
    if (spec === null) responses[String(status)] = { description };
    else if (isTextResponse(spec))
      responses[String(status)] = {
        description: spec.description,
        content: { [spec.contentType]: { schema: { type: "string" } } },
      };
    else
      responses[String(status)] = {
        description,
        content: { "application/json": { schema: set.convert(spec, "output") } },
      };
  }
  op.responses = responses;
  if (r.access !== "none") op.security = [{ sessionCookie: [] }, { bearerToken: [] }, {}];
  return op;
}

/** Builds the document for `routes`; extra schemas (e.g. the WebSocket messages) are added as components. */
export function buildOpenApi(
  routes: readonly RouteSpec[],
  info: { title: string; version: string },
  extraSchemas: readonly z.ZodType[] = [],
): OpenApiDocument {
  const set = new SchemaSet();
  const paths: Record<string, JsonObject> = {};
  const seen = new Set<string>();
  for (const r of routes) {
    const key = `${r.method} ${r.path}`;
    if (seen.has(key) || seen.has(r.name)) throw new Error(`route declared twice: ${key} (${r.name})`);
    seen.add(key);
    seen.add(r.name);
    paths[r.path] ??= {};
    (paths[r.path] as JsonObject)[r.method.toLowerCase()] = operation(r, set);
  }
  for (const s of extraSchemas) set.convert(s, "output");
  const schemas: JsonObject = {};
  for (const name of Object.keys(set.components).sort()) schemas[name] = set.components[name] as JsonObject;
  return {
    openapi: "3.1.0",
    info: {
      title: info.title,
      version: info.version,
      description:
        "The svc console's HTTP API. State-changing requests carried by a session cookie need the CSRF header " +
        "(X-CSRF-Token) equal to the CSRF cookie; bearer-token requests need none. Every error answers ErrorBody. " +
        "Every POST and PUT with a body carries an example: the examples run in order against a fresh `svc lab` " +
        "(sign in with login's example first; change the password and sign out last) and each succeeds. " +
        "`<id from createX>` stands for the id createX's example answered; the admin password is the one " +
        "`svc lab` printed.",
    },
    paths,
    components: {
      schemas,
      securitySchemes: {
        sessionCookie: { type: "apiKey", in: "cookie", name: "__Host-svc_session" },
        bearerToken: { type: "http", scheme: "bearer", description: "an API token (svct_...)" },
      },
    },
  };
}
