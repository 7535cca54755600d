/**
 * `GET /ws` (spec §6.2, §8.1): the WebSocket upgrade on the console's HTTP listener, in front of the LiveHub.
 *
 * Before the upgrade, in this order: the path (404 for any other upgrade), the origin check (an Origin header whose
 * host is not the request's Host: 403; no Origin: allowed), authentication exactly as the API routes (bearer
 * token, session cookie, header mode, anonymous; 401 without a caller, 503 when the store cannot say). After it,
 * the connection caps `websocket.maxConnections`, `maxConnectionsPerAddress` (the client address the console
 * computes, X-Forwarded-For through trusted proxies) and `maxConnectionsPerSubject` (not for the anonymous
 * caller, who is everyone in anonymous mode); 0 disables a cap. A refused socket is accepted and closed at once
 * with 1013 and counted by limit.
 *
 * Messages: JSON text, at most WS_MAX_CLIENT_MESSAGE bytes (a larger frame closes the socket with 1009), handled
 * one at a time in the order they came. A message that is not a WsClientMessage gets `error invalid_message` and
 * changes nothing; a subscription the caller may not hold gets `error forbidden`; the (WS_MAX_TOPICS + 1)th topic
 * `error too_many_topics`. The caller's access is resolved at the first subscription and again when older than
 * ACCESS_TTL_MS, so role changes reach new subscriptions within a minute. Sockets that stop answering pings
 * are dropped after PING_EVERY_MS to 2 x PING_EVERY_MS.
 */
import { type IncomingMessage, type Server, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import {
  WS_CLOSE_TRY_AGAIN,
  WS_MAX_CLIENT_MESSAGE,
  WS_MAX_TOPICS,
  WsClientMessage,
  type WsServerMessage,
} from "@svc/contract";
import { type WebSocket, WebSocketServer } from "ws";
import type { AuthResult } from "../auth/authenticate.ts";
import type { Principal } from "../auth/principal.ts";
import type { ConsoleLogger } from "../log.ts";
import type { Access } from "../rbac/resolve.ts";
import type { LiveClient, LiveHub } from "./hub.ts";
import { realTicker, type Ticker } from "./ticker.ts";
import { topicRefusal } from "./topic-access.ts";

/** Which cap refused a socket (the `limit` label of svc_console_ws_refused_total). */
export type RefusedLimit = "total" | "address" | "subject";

/** A socket's resolved access is reused this long. */
export const ACCESS_TTL_MS = 60_000;
/** Close code of a socket whose session ended (logout, expiry): the tab signs in again before reconnecting. */
export const SESSION_ENDED = 4001;
/** Ping period; a socket that did not answer the previous ping is terminated. Sessions are re-checked then too. */
export const PING_EVERY_MS = 30_000;
/** How often lagging sockets are checked for having drained (slow-consumer gaps of quiet topics). */
export const SWEEP_EVERY_MS = 1000;
/** Messages a socket may have waiting (behind a subscription resolving access); more closes it with 1008. */
export const MAX_PENDING_MESSAGES = 128;

/** Dependencies of LiveSocketServer. */
export interface LiveSocketDeps {
  hub: LiveHub;
  limits: { maxConnections: number; maxConnectionsPerAddress: number; maxConnectionsPerSubject: number };
  /** authentication as the API routes do it; throws when the store cannot answer */
  authenticate(req: IncomingMessage): Promise<AuthResult>;
  /** the caller's roles and permissions; throws when the store cannot answer */
  access(p: Principal): Promise<Access>;
  /** the client address (trusted proxies walked) */
  clientAddress(req: IncomingMessage): string;
  /**
   * Whether a session still holds (logout, expiry, a disabled user's sessions ended), asked for every socket opened
   * with a session at each ping; false closes the socket with 4001. Absent: sockets are not re-checked.
   */
  sessionAlive?(idHash: string): Promise<boolean>;
  onRefused(limit: RefusedLimit): void;
  log: ConsoleLogger;
  /** clock, epoch ms; default Date.now */
  now?: () => number;
  /** periodic work; default setInterval */
  every?: Ticker;
}

/** Writes an HTTP error answer on a socket that asked to upgrade, in the console's error body shape. */
function refuseUpgrade(socket: Duplex, status: number, code: string, message: string): void {
  const body = JSON.stringify({ error: { code, message } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\nConnection: close\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** The Host of `origin` when it differs from `host` (case-insensitive), or why it is unusable; undefined = fine. */
export function originProblem(origin: string | undefined, host: string | undefined): string | undefined {
  if (origin === undefined) return undefined;
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    return "malformed Origin";
  }
  if (originHost === "" || host === undefined || originHost.toLowerCase() !== host.toLowerCase())
    return "Origin host is not the request host";
  return undefined;
}

class Connection implements LiveClient {
  alive = true;
  /** a session check of this socket is in flight */
  checkingSession = false;
  pending = 0;
  queue: Promise<void> = Promise.resolve();
  access: { value: Access; at: number } | undefined;

  constructor(
    readonly ws: WebSocket,
    readonly principal: Principal,
    readonly address: string,
    readonly subjectKey: string | undefined,
  ) {}

  get bufferedAmount(): number {
    return this.ws.bufferedAmount;
  }

  /**
   * Sends one text message (the hub's shared buffer, never copied). Not corked per tick: measured slower
   * (decisions.md, "Live fan-out").
   */
  send(frame: Buffer): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(frame, { binary: false });
  }

  reply(msg: WsServerMessage): void {
    this.send(Buffer.from(JSON.stringify(msg)));
  }
}

function inc(m: Map<string, number>, key: string): void {
  m.set(key, (m.get(key) ?? 0) + 1);
}

function dec(m: Map<string, number>, key: string): void {
  const n = (m.get(key) ?? 0) - 1;
  if (n <= 0) m.delete(key);
  else m.set(key, n);
}

/** The /ws endpoint of one console replica. */
export class LiveSocketServer {
  private readonly wss = new WebSocketServer({
    noServer: true,
    maxPayload: WS_MAX_CLIENT_MESSAGE,
    perMessageDeflate: false,
    clientTracking: false,
  });
  private readonly conns = new Set<Connection>();
  private readonly perAddress = new Map<string, number>();
  private readonly perSubject = new Map<string, number>();
  private readonly now: () => number;
  private readonly every: Ticker;
  private readonly stops: (() => void)[] = [];
  private server: Server | undefined;
  private stopped = false;
  private readonly onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) =>
    this.upgrade(req, socket, head);

  constructor(private readonly deps: LiveSocketDeps) {
    this.now = deps.now ?? Date.now;
    this.every = deps.every ?? realTicker;
  }

  /** Serves upgrades on `server` and starts the ping and sweep timers. */
  attach(server: Server): void {
    this.server = server;
    server.on("upgrade", this.onUpgrade);
    this.stops.push(this.every(PING_EVERY_MS, () => this.ping()));
    this.stops.push(this.every(SWEEP_EVERY_MS, () => this.deps.hub.sweep()));
  }

  /** Sockets open (refused ones not counted). */
  get connections(): number {
    return this.conns.size;
  }

  /** Closes every socket (1001 going away) and stops serving upgrades. */
  close(): void {
    this.stopped = true;
    this.server?.off("upgrade", this.onUpgrade);
    for (const stop of this.stops.splice(0)) stop();
    for (const c of this.conns) {
      c.ws.close(1001, "console stopping");
      c.ws.terminate();
    }
    this.conns.clear();
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on("error", () => {});
    const path = (req.url ?? "").split("?", 1)[0];
    if (path !== "/ws") {
      refuseUpgrade(socket, 404, "not_found", "not found");
      return;
    }
    const bad = originProblem(req.headers.origin, req.headers.host);
    if (bad) {
      refuseUpgrade(socket, 403, "forbidden", bad);
      return;
    }
    this.deps.authenticate(req).then(
      (result) => {
        if (socket.destroyed) return;
        if (this.stopped) {
          socket.destroy();
          return;
        }
        const principal = result.principal;
        if (!principal) {
          const problem = result.problem;
          return refuseUpgrade(socket, 401, "unauthenticated", problem?.message ?? "authentication required");
        }
        this.wss.handleUpgrade(req, socket, head, (ws) => this.open(ws, req, principal));
      },
      (e: unknown) => {
        this.deps.log.warn({ err: String(e) }, "websocket authentication failed: store unavailable");
        refuseUpgrade(socket, 503, "unavailable", "console store unavailable");
      },
    );
  }

  private refusedBy(address: string, subjectKey: string | undefined): RefusedLimit | undefined {
    const { maxConnections, maxConnectionsPerAddress, maxConnectionsPerSubject } = this.deps.limits;
    if (maxConnections > 0 && this.conns.size >= maxConnections) return "total";
    if (maxConnectionsPerAddress > 0 && (this.perAddress.get(address) ?? 0) >= maxConnectionsPerAddress)
      return "address";
    if (
      subjectKey !== undefined &&
      maxConnectionsPerSubject > 0 &&
      (this.perSubject.get(subjectKey) ?? 0) >= maxConnectionsPerSubject
    )
      return "subject";
    return undefined;
  }

  private open(ws: WebSocket, req: IncomingMessage, principal: Principal): void {
    ws.on("error", () => {});
    const address = this.deps.clientAddress(req);
    const subjectKey = principal.kind === "anonymous" ? undefined : principal.subject;
    const refused = this.refusedBy(address, subjectKey);
    if (refused) {
      this.deps.onRefused(refused);
      ws.close(WS_CLOSE_TRY_AGAIN, `too many connections (${refused})`);
      return;
    }
    const c = new Connection(ws, principal, address, subjectKey);
    this.conns.add(c);
    inc(this.perAddress, address);
    if (subjectKey !== undefined) inc(this.perSubject, subjectKey);
    ws.on("pong", () => {
      c.alive = true;
    });
    ws.on("close", () => this.closed(c));
    ws.on("message", (data, isBinary) => {
      if (c.pending >= MAX_PENDING_MESSAGES) {
        ws.close(1008, "too many messages waiting");
        return;
      }
      c.pending++;
      const text = isBinary ? undefined : Buffer.isBuffer(data) ? data.toString("utf8") : undefined;
      c.queue = c.queue
        .then(() => this.message(c, text))
        .catch((e: unknown) => this.deps.log.error({ err: String(e) }, "websocket message failed"))
        .finally(() => {
          c.pending--;
        });
    });
    this.deps.hub.attach(c);
  }

  private closed(c: Connection): void {
    if (!this.conns.delete(c)) return;
    dec(this.perAddress, c.address);
    if (c.subjectKey !== undefined) dec(this.perSubject, c.subjectKey);
    this.deps.hub.detach(c);
  }

  private async message(c: Connection, text: string | undefined): Promise<void> {
    if (!this.conns.has(c)) return;
    const invalid = (message: string) => c.reply({ type: "error", code: "invalid_message", message });
    if (text === undefined) return invalid("messages are JSON text");
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return invalid("not JSON");
    }
    const parsed = WsClientMessage.safeParse(json);
    if (!parsed.success) {
      const where = (p: PropertyKey[]) => (p.length > 0 ? `${p.map(String).join(".")}: ` : "");
      return invalid(parsed.error.issues.map((i) => `${where(i.path)}${i.message}`).join("; "));
    }
    const msg = parsed.data;
    const hub = this.deps.hub;
    if (msg.type === "unsubscribe") return hub.unsubscribe(c, msg.topic);
    if (!hub.holds(c, msg.topic) && hub.held(c) >= WS_MAX_TOPICS)
      return c.reply({
        type: "error",
        topic: msg.topic,
        code: "too_many_topics",
        message: `a socket holds at most ${WS_MAX_TOPICS} topics`,
      });
    let access: Access;
    try {
      access = await this.accessOf(c);
    } catch (e) {
      this.deps.log.warn({ err: String(e) }, "websocket subscription: access unavailable");
      return c.reply({ type: "error", topic: msg.topic, code: "unavailable", message: "access unavailable" });
    }
    if (!this.conns.has(c)) return;
    const refusal = topicRefusal(msg.topic, access);
    if (refusal) return c.reply({ type: "error", topic: msg.topic, code: "forbidden", message: refusal });
    hub.subscribe(c, msg);
  }

  private async accessOf(c: Connection): Promise<Access> {
    const t = this.now();
    if (c.access && t - c.access.at < ACCESS_TTL_MS) return c.access.value;
    const value = await this.deps.access(c.principal);
    c.access = { value, at: t };
    return value;
  }

  private ping(): void {
    this.recheckSessions();
    for (const c of this.conns) {
      if (!c.alive) {
        c.ws.terminate();
        continue;
      }
      c.alive = false;
      c.ws.ping();
    }
  }
  /** Closes (4001) the sockets whose session ended since they opened (see LiveSocketDeps.sessionAlive). */
  private recheckSessions(): void {
    const alive = this.deps.sessionAlive;
    if (!alive) return;
    for (const c of this.conns) {
      const idHash = c.principal.kind === "session" ? c.principal.sessionIdHash : undefined;
      if (idHash === undefined || c.checkingSession) continue;
      c.checkingSession = true;
      alive
        .call(this.deps, idHash)
        .then(
          (ok) => {
            if (!ok) c.ws.close(SESSION_ENDED, "session ended");
          },
          // a store that cannot answer now: keep the socket, ask again at the next ping
          (e: unknown) => this.deps.log.warn({ err: String(e) }, "websocket session check failed"),
        )
        .finally(() => {
          c.checkingSession = false;
        });
    }
  }
}
