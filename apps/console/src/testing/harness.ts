/** Test helpers: a ConsoleServer on 127.0.0.1 port 0, a settable clock, and a fetch client that keeps cookies. */
import { parseConsoleConfig } from "../config/load.ts";
import { ConsoleServer, type ConsoleServerOptions } from "../server.ts";
import type { Db } from "../store/db.ts";

/** A clock tests move by hand. */
export class TestClock {
  constructor(public t = Date.UTC(2026, 0, 1)) {}
  readonly now = (): number => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

/** Starts a console from YAML text on loopback ports chosen by the kernel. */
export async function startConsole(
  yaml: string,
  opts: { db?: Db; clock?: TestClock; server?: Partial<ConsoleServerOptions> } = {},
): Promise<ConsoleServer> {
  const { config } = parseConsoleConfig(yaml, {});
  const server = new ConsoleServer({
    config,
    db: opts.db,
    now: opts.clock?.now,
    host: "127.0.0.1",
    httpPort: 0,
    metricsPort: 0,
    version: "test",
    ...opts.server,
  });
  await server.start();
  return server;
}

/** A browser-like client: remembers cookies set by the server and echoes the CSRF cookie when asked. */
export class CookieClient {
  readonly jar = new Map<string, string>();
  /** raw Set-Cookie lines of the last response */
  lastSetCookie: string[] = [];

  constructor(
    private readonly base: string,
    private readonly csrfCookie: string,
  ) {}

  async request(
    method: string,
    path: string,
    opts: { body?: unknown; csrf?: boolean | string; headers?: Record<string, string> } = {},
  ): Promise<{ status: number; body: unknown; headers: Headers }> {
    const headers: Record<string, string> = { ...opts.headers };
    if (this.jar.size > 0) headers.cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join("; ");
    if (opts.csrf === true) headers["x-csrf-token"] = this.jar.get(this.csrfCookie) ?? "";
    else if (typeof opts.csrf === "string") headers["x-csrf-token"] = opts.csrf;
    if (opts.body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${this.base}${path}`, {
      method,
      redirect: "manual",
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    this.lastSetCookie = res.headers.getSetCookie();
    for (const line of this.lastSetCookie) {
      const [pair = "", ...attrs] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (attrs.some((a) => a.trim().toLowerCase() === "max-age=0")) this.jar.delete(name);
      else this.jar.set(name, value);
    }
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text === "" ? undefined : JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: res.status, body, headers: res.headers };
  }
}
