/**
 * The typed API client: same-origin JSON requests, the CSRF header on every state-changing request (value read
 * from the CSRF cookie, which is not HttpOnly by design), and one hook for 401 so the app can send the user to
 * sign-in and back. Failures become ApiError with the status, the server's error code and message.
 */
import {
  type CallInput,
  type ErrorBody,
  pathOf,
  queryString,
  type ResultOf,
  type RouteSpec,
} from "@svc/contract";

/** An API answer outside 2xx (or no answer: status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** seconds from Retry-After (429), else null */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** Options of ApiClient. */
export interface ApiClientOptions {
  /** called on a 401 from any request not marked `expect401` */
  onUnauthorized: () => void;
  /** CSRF header name; default X-CSRF-Token (GET /api/v1/config tells the real one) */
  csrfHeader?: string;
  /** prefix of requests; default "" (same origin) */
  base?: string;
}

/** Per-request options. */
export interface RequestOptions {
  /** a 401 is an expected answer here (sign-in, the sign-in page's probes): no redirect */
  expect401?: boolean;
}

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

/** Reads the CSRF cookie: the one named `..._csrf` (the session cookie's sibling, spec §5.4). */
export function readCsrfCookie(cookies: string, name?: string): string {
  for (const part of cookies.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const k = part.slice(0, eq).trim();
    if (name ? k === name : k.endsWith("_csrf")) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return "";
}

/** The client; one per app. */
export class ApiClient {
  private csrfHeader: string;
  private csrfCookie: string | undefined;

  constructor(private readonly opts: ApiClientOptions) {
    this.csrfHeader = opts.csrfHeader ?? "X-CSRF-Token";
  }

  /** Adopts the cookie and header names GET /api/v1/config announced. */
  useCsrfNames(cookie: string, header: string): void {
    this.csrfCookie = cookie;
    this.csrfHeader = header;
  }

  /**
   * Calls a route declared in the contract: path parameters filled in, query encoded, body sent as JSON; resolves
   * with the success body typed from the declaration (undefined for 204).
   */
  call<S extends RouteSpec>(
    route: S,
    ...[input, o]: Partial<CallInput<S>> extends CallInput<S>
      ? [CallInput<S>?, RequestOptions?]
      : [CallInput<S>, RequestOptions?]
  ): Promise<ResultOf<S>> {
    const i = (input ?? {}) as {
      params?: Record<string, string>;
      query?: Record<string, unknown>;
      body?: unknown;
    };
    const path = `${pathOf(route, i.params)}${queryString(i.query)}`;
    return this.request<ResultOf<S>>(route.method, path, i.body, o);
  }

  /** Sends one request; resolves with the parsed JSON body (undefined for 204). */
  private async request<T>(
    method: string,
    path: string,
    reqBody: unknown,
    o: RequestOptions = {},
  ): Promise<T> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (reqBody !== undefined) headers["content-type"] = "application/json";
    if (!SAFE.has(method)) {
      const csrf = readCsrfCookie(document.cookie, this.csrfCookie);
      if (csrf !== "") headers[this.csrfHeader] = csrf;
    }
    let res: Response;
    try {
      res = await fetch(`${this.opts.base ?? ""}${path}`, {
        method,
        headers,
        credentials: "same-origin",
        body: reqBody === undefined ? undefined : JSON.stringify(reqBody),
      });
    } catch (e) {
      throw new ApiError(0, "network", `console unreachable: ${e instanceof Error ? e.message : String(e)}`);
    }
    const text = await res.text();
    let body: unknown;
    try {
      body = text === "" ? undefined : JSON.parse(text);
    } catch {
      body = text;
    }
    if (res.ok) return body as T;
    const err = (body as Partial<ErrorBody> | undefined)?.error;
    const retry = Number.parseInt(res.headers.get("retry-after") ?? "", 10);
    const e = new ApiError(
      res.status,
      err?.code ?? `http_${res.status}`,
      err?.message ?? (typeof body === "string" && body !== "" ? body : res.statusText),
      Number.isFinite(retry) ? retry : null,
    );
    if (res.status === 401 && !o.expect401) this.opts.onUnauthorized();
    throw e;
  }
}

/** Human text for a failed action (what a person should read, not a stack). */
export function describeError(e: unknown): string {
  if (e instanceof ApiError) {
    if (e.status === 0) return "The console cannot be reached. Check your connection and try again.";
    if (e.status === 403) return `Not allowed: ${e.message}`;
    if (e.status === 409) return `Refused: ${e.message}`;
    if (e.status === 502) return `The token store is unavailable (${e.message}); nothing was changed.`;
    if (e.status === 503) return `Unavailable: ${e.message}`;
    return e.message;
  }
  return e instanceof Error ? e.message : String(e);
}
