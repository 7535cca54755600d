import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { MetricRegistry } from "../metrics/store/registry.ts";
import { resetBareCloses } from "./bare-close-reset.ts";
import { sendChunks } from "./metrics-stream.ts";

export interface AgentHttpServersOptions {
  /** 0 = any free port */
  httpPort: number;
  /** 0 = any free port */
  metricsPort: number;
  /** bind address; default "::" (dual stack), falling back to "0.0.0.0" where IPv6 is unavailable */
  host?: string;
  registry: MetricRegistry;
  /** readiness: true once the peer watch is confirmed */
  isReady: () => boolean;
  version: { version: string; commit: string };
}

/** The agent's two listeners (spec §4.1, §1 Listeners). */
export interface AgentHttpServers {
  /** Binds both listeners; rejects when a port is taken (nothing stays bound then). */
  start(): Promise<void>;
  /** Closes both listeners; idempotent. */
  stop(): Promise<void>;
  /** The bound ports (meaningful after start; the actual port when configured as 0). */
  readonly httpPort: number;
  readonly metricsPort: number;
}

/** A route's answer: status, content type and body. */
interface Reply {
  status: number;
  type: string;
  body: string;
  /** the body in chunks, instead of `body` (sent chunked, without content-length) */
  chunks?: () => Iterator<string>;
}
type Route = () => Reply | Promise<Reply>;

const TEXT = "text/plain; charset=utf-8";
const JSON_TYPE = "application/json; charset=utf-8";
/** Idle keep-alive timeout, as the agent has always announced it (`Keep-Alive: timeout=72`). */
const KEEP_ALIVE_MS = 72_000;

function probeRoutes(o: AgentHttpServersOptions): Map<string, Route> {
  return new Map<string, Route>([
    ["/healthz", () => ({ status: 200, type: TEXT, body: "ok" })],
    [
      "/readyz",
      () =>
        o.isReady()
          ? { status: 200, type: TEXT, body: "ok" }
          : { status: 503, type: TEXT, body: "not ready" },
    ],
    [
      "/metrics",
      () => ({
        status: 200,
        type: o.registry.contentType,
        body: "",
        chunks: () => o.registry.chunks(),
      }),
    ],
  ]);
}

function errorReply(status: number, error: string, message: string): Reply {
  return { status, type: JSON_TYPE, body: JSON.stringify({ statusCode: status, error, message }) };
}

function send(res: ServerResponse, r: Reply, head: boolean): void {
  if (r.chunks) {
    const failed = (err: unknown) =>
      send(res, errorReply(500, "Internal Server Error", (err as Error).message), head);
    void sendChunks(res, r.type, r.chunks(), head, failed);
    return;
  }
  res.writeHead(r.status, { "content-type": r.type, "content-length": Buffer.byteLength(r.body) });
  res.end(head ? undefined : r.body);
}

/** The request path without query or fragment, percent-decoded; undefined when the encoding is malformed. */
function routePath(url: string): string | undefined {
  let end = url.length;
  for (let i = 0; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 0x3f /* ? */ || c === 0x23 /* # */) {
      end = i;
      break;
    }
  }
  const raw = url.slice(0, end);
  if (!raw.includes("%")) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/**
 * One listener's request handler: GET (and HEAD, same headers without body) on the exact paths of `routes`,
 * query string ignored. Anything else is 404 with a JSON body naming the route, a malformed percent-encoding
 * 400, a failing route 500 (the wire format the agent served when it ran on fastify).
 */
function handler(routes: Map<string, Route>) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? "/";
    const method = req.method ?? "GET";
    const head = method === "HEAD";
    const path = routePath(url);
    if (path === undefined) {
      const message = `'${url.split(/[?#]/)[0]}' is not a valid url component`;
      const body = JSON.stringify({
        error: "Bad Request",
        code: "FST_ERR_BAD_URL",
        message,
        statusCode: 400,
      });
      send(res, { status: 400, type: "application/json", body }, head);
      return;
    }
    const route = method === "GET" || head ? routes.get(path) : undefined;
    if (!route) {
      const body = JSON.stringify({
        message: `Route ${method}:${url} not found`,
        error: "Not Found",
        statusCode: 404,
      });
      send(res, { status: 404, type: JSON_TYPE, body }, head);
      return;
    }
    Promise.resolve()
      .then(route)
      .then(
        (r) => send(res, r, head),
        (err: unknown) => send(res, errorReply(500, "Internal Server Error", (err as Error).message), head),
      );
  };
}

function bind(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => reject(err);
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve();
    });
  });
}

async function listen(server: Server, port: number, host: string | undefined): Promise<number> {
  if (host !== undefined) await bind(server, port, host);
  else {
    try {
      await bind(server, port, "::");
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "EAFNOSUPPORT" && code !== "EADDRNOTAVAIL") throw err;
      await bind(server, port, "0.0.0.0");
    }
  }
  const addr = server.address();
  return addr && typeof addr === "object" ? addr.port : port;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

/**
 * Builds the agent's HTTP listeners on node:http. httpPort serves /healthz (200 `ok`), /readyz (200 `ok` or
 * 503 `not ready`, text/plain), /metrics and /api/v1/version (`{version, commit}`); metricsPort serves
 * /metrics, /healthz and /readyz. Anything else is 404.
 */
export function createAgentHttpServers(options: AgentHttpServersOptions): AgentHttpServers {
  let api: Server | undefined;
  let metrics: Server | undefined;
  let ports = { http: options.httpPort, metrics: options.metricsPort };

  const build = (): { api: Server; metrics: Server } => {
    const apiRoutes = probeRoutes(options);
    const version = JSON.stringify({ version: options.version.version, commit: options.version.commit });
    apiRoutes.set("/api/v1/version", () => ({ status: 200, type: JSON_TYPE, body: version }));
    const make = (routes: Map<string, Route>): Server => {
      const s = createServer(handler(routes));
      s.keepAliveTimeout = KEEP_ALIVE_MS;
      // the api port is the peers' tcp probe target; the metrics port answers probes of any kind the same way
      resetBareCloses(s);
      return s;
    };
    return { api: make(apiRoutes), metrics: make(probeRoutes(options)) };
  };

  const stop = async (): Promise<void> => {
    const servers = [api, metrics].filter((x): x is Server => x !== undefined);
    api = undefined;
    metrics = undefined;
    await Promise.all(servers.map(closeServer));
  };

  return {
    async start() {
      if (api) return;
      const built = build();
      api = built.api;
      metrics = built.metrics;
      try {
        const http = await listen(built.api, options.httpPort, options.host);
        const metricsPort = await listen(built.metrics, options.metricsPort, options.host);
        ports = { http, metrics: metricsPort };
      } catch (err) {
        await stop();
        throw err;
      }
    },
    stop,
    get httpPort() {
      return ports.http;
    },
    get metricsPort() {
      return ports.metrics;
    },
  };
}
