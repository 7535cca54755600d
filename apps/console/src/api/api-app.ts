/**
 * The console's API listener as a Fastify app: the error table, the client address and identity of every /api/
 * request (a store that cannot be asked is 503), the cookie policy, the probe routes and every contract route.
 * `GET /ws` without an upgrade is 400 here; the upgrade itself is served by live/socket-server.ts.
 */
import type { Cidr } from "@svc/core";
import Fastify, { type FastifyInstance, type FastifyRequest } from "fastify";
import "./context.ts";
import type { Authenticator, AuthResult } from "../auth/authenticate.ts";
import { clientAddress } from "../auth/client-address.ts";
import type { Principal } from "../auth/principal.ts";
import { InvalidInputError, UnavailableError } from "../errors.ts";
import type { ConsoleLogger } from "../log.ts";
import type { Access } from "../rbac/resolve.ts";
import { isStoreDown } from "../store/prepare.ts";
import type { CookiePolicy } from "./cookie-policy.ts";
import { installErrorHandler } from "./error-handler.ts";
import { addProbeRoutes, type ProbeDeps } from "./probes.ts";
import { routeAdder } from "./register.ts";
import { addConsoleRoutes, type ConsoleRouteDeps } from "./routes.ts";

const SAFE_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"]);

/** What the API app needs besides the routes' own dependencies. */
export interface ApiAppDeps {
  routes: ConsoleRouteDeps;
  authenticator: Authenticator;
  /** called after every state-changing /api/ request: it may have revoked access (auth/auth-cache.ts) */
  revoke: () => void;
  cookies: CookiePolicy;
  clientProxies: Cidr[];
  probes: ProbeDeps;
  access: (req: FastifyRequest, p: Principal) => Promise<Access>;
  log: ConsoleLogger;
  /** told "METHOD /url" of each route as Fastify registers it */
  onRoute: (route: string) => void;
}

/** Builds the API app (not listening). */
export function buildApiApp(d: ApiAppDeps): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
  app.addHook("onRoute", (r) => {
    for (const m of [r.method].flat()) d.onRoute(`${m} ${r.url}`);
  });
  installErrorHandler(app, (err) => {
    if (isStoreDown(err)) return new UnavailableError("console store unavailable");
    d.log.error({ err: String(err), stack: (err as Error).stack }, "internal error");
    return undefined;
  });
  app.decorateRequest("consoleAuth", null as unknown as AuthResult);
  app.decorateRequest("clientAddr", "");
  app.addHook("onRequest", async (req, reply) => {
    req.clientAddr = clientAddress(
      req.socket.remoteAddress ?? "",
      req.headers["x-forwarded-for"],
      d.clientProxies,
    );
    if (!req.url.startsWith("/api/")) {
      req.consoleAuth = {};
      return;
    }
    let result: AuthResult;
    try {
      result = await d.authenticator.authenticate({
        peer: req.socket.remoteAddress ?? "",
        headers: req.headers,
      });
    } catch (e) {
      d.log.warn({ err: String(e) }, "authentication failed: store unavailable");
      throw new UnavailableError("console store unavailable");
    }
    req.consoleAuth = result;
    if (result.clearSession) d.cookies.clearSession(reply);
    if (result.principal) d.cookies.check(req, reply, result.principal);
  });
  // before the answer leaves: the caller's next request must not meet what it just revoked. A refused request (4xx)
  // changed nothing, so junk writes cannot keep every replica's cache empty (nor publish on the shared store).
  app.addHook("onSend", async (req, reply) => {
    const refused = reply.statusCode >= 400 && reply.statusCode < 500;
    if (!refused && !SAFE_METHODS.has(req.method) && req.url.startsWith("/api/")) d.revoke();
  });
  addProbeRoutes(
    routeAdder(app, (req, p) => d.access(req, p)),
    d.probes,
  );
  addConsoleRoutes(app, d.routes);
  // GET /ws with `Upgrade: websocket` never reaches Fastify (live/socket-server.ts serves the upgrade)
  app.get("/ws", async () => {
    throw new InvalidInputError("GET /ws expects a WebSocket upgrade");
  });
  return app;
}
