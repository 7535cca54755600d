/**
 * One console route, declared once: method, path, who may call it, what it takes and what it answers. The server
 * registers its handler against the declaration (validation and the access check come from it), the web app calls
 * it through `ApiClient.call(declaration, ...)`, and the OpenAPI document and docs/console-api.md are generated
 * from the list of declarations (routes.ts).
 */
import type { z } from "zod";
import type { Permission } from "./permissions.ts";

/** HTTP methods the console serves. */
export type Method = "GET" | "POST" | "PUT" | "DELETE";

/**
 * Who may call a route: `none` (no caller needed), `caller` (any authenticated or anonymous caller), `role` (a
 * caller holding at least one role: the telemetry reads of spec §5.3), or one permission name.
 */
export type Access = "none" | "caller" | "role" | Permission;

/** A response that is not JSON (liveness text, Prometheus exposition). */
export interface TextResponse {
  contentType: string;
  description: string;
}

/** A response body: a JSON schema, a non-JSON body, or `null` for no body (204, redirects). */
export type ResponseSpec = z.ZodType | TextResponse | null;

/** A route declaration. Paths use `{name}` for path parameters, as OpenAPI does. */
export interface RouteSpec {
  /** operation id (unique, camelCase) */
  readonly name: string;
  readonly method: Method;
  readonly path: `/${string}`;
  /** tag grouping the route in the docs (the resource) */
  readonly tag: string;
  readonly summary: string;
  /** rules a caller must know: mode gating, limits, the errors that mean something specific */
  readonly description?: string;
  readonly access: Access;
  /** true when the spec (§4.3) names this path; false: the console's own choice */
  readonly spec: boolean;
  readonly params?: z.ZodObject;
  readonly query?: z.ZodObject;
  readonly body?: z.ZodType;
  readonly responses: Readonly<Record<number, ResponseSpec>>;
  /**
   * true for a POST that changes nothing (a query whose body would not fit a URL): it is not a write, so it is
   * neither audited nor walked by the write-route suites
   */
  readonly safe?: boolean;
  /**
   * an example request body (OpenAPI `example`), valid for `body`. Every POST and PUT with a body has one, and run
   * in the order of `routes` against a fresh `svc lab` (agents node-1, node-2, node-3) each succeeds, so the document
   * doubles as a tutorial (test/e2e/lab-examples.test.ts); ids it cannot know are `idFrom(<an earlier route>)`
   */
  readonly example?: unknown;
}

/**
 * In an example: the id that the example of route `name` answered. The examples run in the order of `routes`
 * against a fresh `svc lab`, so a route's example names an object an earlier example created this way.
 */
export function idFrom(name: string): string {
  return `<id from ${name}>`;
}

/** The name of an `idFrom` placeholder, or undefined for any other value. */
export function idFromName(value: unknown): string | undefined {
  return typeof value === "string" ? /^<id from ([A-Za-z]+)>$/.exec(value)?.[1] : undefined;
}

/** In an example: the console administrator's password that `svc lab` printed (new in each lab). */
export const LAB_ADMIN_PASSWORD = "<the admin password svc lab printed>";

/** Declares a route (identity at run time; keeps the literal types for callers and handlers). */
export function route<const S extends RouteSpec>(spec: S): S {
  return spec;
}

type Infer<T, Dir extends "in" | "out"> = T extends z.ZodType
  ? Dir extends "in"
    ? z.input<T>
    : z.output<T>
  : never;

/** Path parameters a caller passes (undefined when the route has none). */
export type ParamsOf<S extends RouteSpec> = S["params"] extends z.ZodType ? z.input<S["params"]> : undefined;
/** Query a caller passes. */
export type QueryOf<S extends RouteSpec> = S["query"] extends z.ZodType ? z.input<S["query"]> : undefined;
/** Body a caller sends. */
export type BodyOf<S extends RouteSpec> = S["body"] extends z.ZodType ? z.input<S["body"]> : undefined;

type SuccessStatus = 200 | 201 | 202 | 204;
type SuccessBody<S extends RouteSpec, Dir extends "in" | "out"> = {
  [K in keyof S["responses"]]: K extends SuccessStatus
    ? S["responses"][K] extends z.ZodType
      ? Infer<S["responses"][K], Dir>
      : undefined
    : never;
}[keyof S["responses"]];

/** The success body a caller receives (parsed JSON; undefined for 204 and non-JSON answers). */
export type ResultOf<S extends RouteSpec> = SuccessBody<S, "out">;
/** The success body a handler produces. */
export type ReplyOf<S extends RouteSpec> = SuccessBody<S, "in">;

/** The success statuses a route declares, lowest first. */
export function successStatuses(spec: RouteSpec): number[] {
  return Object.keys(spec.responses)
    .map(Number)
    .filter((s) => s >= 200 && s < 300)
    .sort((a, b) => a - b);
}

/** True for a non-JSON response declaration. */
export function isTextResponse(r: ResponseSpec): r is TextResponse {
  return r !== null && typeof r === "object" && "contentType" in r && !("_zod" in r);
}

/**
 * The concrete path of a route: `{name}` placeholders replaced by the URI-encoded parameter. Throws when a
 * parameter is missing (a bug in the caller).
 */
export function pathOf(spec: RouteSpec, params?: Readonly<Record<string, string>>): string {
  return spec.path.replace(/\{([A-Za-z]+)\}/g, (_m, name: string) => {
    const v = params && Object.hasOwn(params, name) ? params[name] : undefined;
    if (v === undefined) throw new Error(`${spec.name}: path parameter ${name} missing`);
    return encodeURIComponent(v);
  });
}

type Keys<S extends RouteSpec> = (S["params"] extends z.ZodType
  ? { params: ParamsOf<S> }
  : { params?: undefined }) &
  (S["query"] extends z.ZodType ? { query?: QueryOf<S> } : { query?: undefined }) &
  (S["body"] extends z.ZodType ? { body: BodyOf<S> } : { body?: undefined });

/** What a caller passes to call a route: its path parameters, query and body, each only where declared. */
export type CallInput<S extends RouteSpec> = Keys<S>;

/** The query string of a call (`?a=1&b=x`, or "" when nothing is set). */
export function queryString(query: Readonly<Record<string, unknown>> | undefined): string {
  if (!query) return "";
  const parts: string[] = [];
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  }
  return parts.length === 0 ? "" : `?${parts.join("&")}`;
}
