/** Test helper: a `ws` client of a console's /ws that queues what the server sends and awaits messages. */
import type { WsClientMessage, WsServerMessage } from "@svc/contract";
import WebSocket from "ws";

/** How an upgrade ended: open, refused with an HTTP status, or failed. */
export type Opened = { socket: LiveTestClient } | { status: number; body: string };

/** One test socket. */
export class LiveTestClient {
  readonly got: WsServerMessage[] = [];
  private waiters: (() => void)[] = [];
  /** close code and reason once closed */
  closed: { code: number; reason: string } | undefined;

  constructor(readonly ws: WebSocket) {
    ws.on("message", (data) => {
      this.got.push(JSON.parse(String(data)) as WsServerMessage);
      this.wake();
    });
    ws.on("close", (code, reason) => {
      this.closed = { code, reason: String(reason) };
      this.wake();
    });
    ws.on("error", () => {});
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  send(msg: WsClientMessage | Record<string, unknown>): void {
    this.ws.send(JSON.stringify(msg));
  }

  sendRaw(data: string | Buffer): void {
    this.ws.send(data);
  }

  /** Waits for `n` messages (default 1) matching `pred` (or any), removes and returns them; fails after 5 s. */
  async take(n = 1, pred: (m: WsServerMessage) => boolean = () => true): Promise<WsServerMessage[]> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const hits = this.got.filter(pred);
      if (hits.length >= n) {
        const out = hits.slice(0, n);
        for (const m of out) this.got.splice(this.got.indexOf(m), 1);
        return out;
      }
      if (this.closed)
        throw new Error(`socket closed (${this.closed.code}) with ${hits.length}/${n} messages`);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`timed out with ${hits.length}/${n} messages: ${JSON.stringify(this.got)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The next message of a topic-less or given type. */
  async next<T extends WsServerMessage["type"]>(type: T): Promise<Extract<WsServerMessage, { type: T }>> {
    const [m] = await this.take(1, (x) => x.type === type);
    return m as Extract<WsServerMessage, { type: T }>;
  }

  /** Sends a subscribe and waits for its answer (subscribed or error). */
  async subscribe(
    topic: string,
    cursor: { since?: number; replica?: string } = {},
  ): Promise<Extract<WsServerMessage, { type: "subscribed" | "error" }>> {
    this.send({ type: "subscribe", topic, ...cursor });
    const [m] = await this.take(
      1,
      (x) => (x.type === "subscribed" || x.type === "error") && (x.topic === topic || x.topic === undefined),
    );
    return m as Extract<WsServerMessage, { type: "subscribed" | "error" }>;
  }

  /** Waits until closed; resolves with the close code. */
  async whenClosed(): Promise<{ code: number; reason: string }> {
    const deadline = Date.now() + 5000;
    while (!this.closed) {
      if (Date.now() > deadline) throw new Error("socket not closed within 5 s");
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 100);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.closed;
  }

  close(): void {
    this.ws.close();
  }
}

/** Opens `httpUrl`'s /ws with `headers`; resolves open or with the refusal's status and body. */
export function openLive(
  httpUrl: string,
  headers: Record<string, string> = {},
  path = "/ws",
): Promise<Opened> {
  const ws = new WebSocket(`${httpUrl.replace(/^http/, "ws")}${path}`, { headers });
  return new Promise((resolve, reject) => {
    const client = new LiveTestClient(ws);
    ws.once("open", () => resolve({ socket: client }));
    ws.once("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (c: Buffer) => {
        body += String(c);
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      res.on("error", reject);
    });
    ws.once("error", (e) => reject(e));
  });
}

/** Opens /ws and fails the test unless it opened. */
export async function mustOpen(
  httpUrl: string,
  headers: Record<string, string> = {},
): Promise<LiveTestClient> {
  const r = await openLive(httpUrl, headers);
  if (!("socket" in r)) throw new Error(`upgrade refused: ${r.status} ${r.body}`);
  return r.socket;
}
