import Fastify, { type FastifyInstance } from "fastify";
import type { Registry } from "prom-client";

export interface AgentHttpServersOptions {
  /** 0 = any free port */
  httpPort: number;
  /** 0 = any free port */
  metricsPort: number;
  /** bind address; default "::" (dual stack), falling back to "0.0.0.0" where IPv6 is unavailable */
  host?: string;
  registry: Registry;
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

function addProbeRoutes(app: FastifyInstance, o: AgentHttpServersOptions): void {
  app.get("/healthz", async (_req, reply) => reply.type("text/plain; charset=utf-8").send("ok"));
  app.get("/readyz", async (_req, reply) => {
    const ready = o.isReady();
    return reply
      .code(ready ? 200 : 503)
      .type("text/plain; charset=utf-8")
      .send(ready ? "ok" : "not ready");
  });
  app.get("/metrics", async (_req, reply) => {
    const text = await o.registry.metrics();
    return reply.type(o.registry.contentType).send(text);
  });
}

async function listen(app: FastifyInstance, port: number, host: string | undefined): Promise<number> {
  if (host !== undefined) await app.listen({ port, host });
  else {
    try {
      await app.listen({ port, host: "::" });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "EAFNOSUPPORT" && code !== "EADDRNOTAVAIL") throw err;
      await app.listen({ port, host: "0.0.0.0" });
    }
  }
  const addr = app.server.address();
  return addr && typeof addr === "object" ? addr.port : port;
}

/**
 * Builds the agent's HTTP listeners with fastify. httpPort serves /healthz (200 `ok`), /readyz (200 `ok` or
 * 503 `not ready`, text/plain), /metrics and /api/v1/version (`{version, commit}`); metricsPort serves
 * /metrics, /healthz and /readyz. Anything else is 404.
 */
export function createAgentHttpServers(options: AgentHttpServersOptions): AgentHttpServers {
  let api: FastifyInstance | undefined;
  let metrics: FastifyInstance | undefined;
  let ports = { http: options.httpPort, metrics: options.metricsPort };

  const build = (): { api: FastifyInstance; metrics: FastifyInstance } => {
    const a = Fastify({ logger: false });
    addProbeRoutes(a, options);
    const version = { version: options.version.version, commit: options.version.commit };
    a.get("/api/v1/version", async () => version);
    const m = Fastify({ logger: false });
    addProbeRoutes(m, options);
    return { api: a, metrics: m };
  };

  const stop = async (): Promise<void> => {
    const apps = [api, metrics].filter((x): x is FastifyInstance => x !== undefined);
    api = undefined;
    metrics = undefined;
    await Promise.all(apps.map((x) => x.close()));
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
