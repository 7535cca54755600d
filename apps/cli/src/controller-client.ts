import type { CheckResult, TopologySnapshot } from "@svc/protocol";

/** Environment variable naming the controller's HTTP API base URL. */
export const CONTROLLER_URL_ENV = "SVC_CONTROLLER_URL";
export const DEFAULT_CONTROLLER_URL = "http://127.0.0.1:8080";

/** Body of POST /api/v1/diagnostics (spec §4.2). */
export interface DiagnosticBody {
  source: string;
  destination: string;
  type: string;
  destinationKind?: "node" | "external";
  destinationAddress?: string;
}

/** CheckResult (spec §2.5) as the controller answers it. */
export type CheckResultBody = CheckResult;

/**
 * The controller could not be reached (`status` 0) or answered other than 200. `message` is ready to print:
 * it carries the controller's own error text.
 */
export class ControllerApiError extends Error {
  readonly status: number;
  readonly body: string;
  constructor(status: number, body: string, message: string) {
    super(message);
    this.name = "ControllerApiError";
    this.status = status;
    this.body = body;
  }
}

/**
 * The controller base URL: `flag` if given, else env SVC_CONTROLLER_URL, else http://127.0.0.1:8080. Trailing
 * slashes are dropped. Returns undefined for anything that is not an http(s) URL.
 */
export function resolveControllerUrl(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const raw = flag ?? (env[CONTROLLER_URL_ENV] || DEFAULT_CONTROLLER_URL);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  return raw.replace(/\/+$/, "");
}

/** A thin client of the controller HTTP API (spec §4.2). No whole-request timeout: the server bounds each call. */
export class ControllerClient {
  readonly baseUrl: string;

  constructor(baseUrl: string) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
  }

  /** GET /api/v1/topology. Throws ControllerApiError when unreachable or not 200 (e.g. 503 `not the leader`). */
  async topology(): Promise<TopologySnapshot> {
    return (await this.#json("GET", "/api/v1/topology")) as TopologySnapshot;
  }

  /**
   * POST /api/v1/diagnostics with `?timeout=` when given (seconds). Resolves with the CheckResult of a 200 (the
   * check ran; read `success`); throws ControllerApiError with the controller's text for any other status.
   */
  async diagnose(body: DiagnosticBody, timeoutSeconds?: number): Promise<CheckResultBody> {
    const q = timeoutSeconds === undefined ? "" : `?timeout=${encodeURIComponent(String(timeoutSeconds))}`;
    return (await this.#json("POST", `/api/v1/diagnostics${q}`, body)) as CheckResultBody;
  }

  async #json(method: string, path: string, body?: unknown): Promise<unknown> {
    const url = `${this.baseUrl}${path}`;
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
      throw new ControllerApiError(0, "", `cannot reach the controller at ${this.baseUrl}: ${why}`);
    }
    const text = await res.text();
    if (res.status !== 200) {
      const reason = text.trim() === "" ? res.statusText : text.trim();
      throw new ControllerApiError(res.status, text, `controller answered ${res.status}: ${reason}`);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new ControllerApiError(
        res.status,
        text,
        `controller answered ${res.status} with a body that is not JSON`,
      );
    }
  }
}
