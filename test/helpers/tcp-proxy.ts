/**
 * Test helper: a TCP proxy owned by the test, on 127.0.0.1 port 0, in front of one target. Its mode is switched
 * live:
 *  - `pass`: new connections are forwarded; stalled and held connections resume (what they sent meanwhile is kept);
 *  - `refuse`: new connections are closed at once (reset) and every open connection is closed at once;
 *  - `hang`: new connections are accepted and never forwarded; open connections stop forwarding in both directions
 *    (a server that stopped answering); nothing is closed.
 * Connections accepted while hanging are held and connected to the target when the proxy passes again (a server
 * that comes back answers what was queued).
 */
import { connect, createServer, type Server, type Socket } from "node:net";

export type ProxyMode = "pass" | "refuse" | "hang";

interface Pair {
  client: Socket;
  upstream?: Socket;
  /** upstream connected and forwarding wired */
  wired: boolean;
}

export class TcpProxy {
  #mode: ProxyMode = "pass";
  readonly #pairs = new Set<Pair>();
  /** connections accepted while hanging: never forwarded */
  readonly #held = new Set<Socket>();
  #accepted = 0;

  private constructor(
    readonly server: Server,
    public targetHost: string,
    public targetPort: number,
  ) {
    server.on("connection", (c) => this.#accept(c));
  }

  /** Starts a proxy on 127.0.0.1:0 forwarding to `host:port`. */
  static async start(port: number, host = "127.0.0.1"): Promise<TcpProxy> {
    const server = createServer({ pauseOnConnect: true });
    const p = new TcpProxy(server, host, port);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    return p;
  }

  /** The proxy's port on 127.0.0.1. */
  get port(): number {
    const a = this.server.address();
    return typeof a === "object" && a ? a.port : 0;
  }

  get mode(): ProxyMode {
    return this.#mode;
  }

  /** Connections accepted so far (any mode). */
  get accepted(): number {
    return this.#accepted;
  }

  /** Open connections (forwarded and held). */
  get open(): number {
    return this.#pairs.size + this.#held.size;
  }

  /** Forwards new connections to another target (open ones keep theirs): a load balancer moving a client. */
  retarget(port: number, host = "127.0.0.1"): void {
    this.targetPort = port;
    this.targetHost = host;
  }

  /** Switches the mode; `refuse` closes every open connection at once. */
  set(mode: ProxyMode): void {
    this.#mode = mode;
    if (mode === "refuse") {
      for (const p of this.#pairs) this.#destroy(p);
      for (const s of this.#held) s.resetAndDestroy();
      this.#held.clear();
    } else if (mode === "hang") {
      for (const p of this.#pairs) {
        p.client.pause();
        p.upstream?.pause();
      }
    } else {
      const held = [...this.#held];
      this.#held.clear();
      for (const c of held) this.#forward(c);
      for (const p of this.#pairs) {
        if (!p.wired) continue;
        p.client.resume();
        p.upstream?.resume();
      }
    }
  }

  #accept(client: Socket): void {
    this.#accepted++;
    client.on("error", () => {});
    if (this.#mode === "refuse") {
      client.resetAndDestroy();
      return;
    }
    if (this.#mode === "hang") {
      this.#held.add(client);
      client.once("close", () => this.#held.delete(client));
      return; // paused (pauseOnConnect): read nothing, answer nothing
    }
    this.#forward(client);
  }

  #forward(client: Socket): void {
    client.removeAllListeners("close");
    client.pause();
    const pair: Pair = { client, wired: false };
    this.#pairs.add(pair);
    const upstream = connect(this.targetPort, this.targetHost);
    pair.upstream = upstream;
    upstream.on("error", () => this.#destroy(pair));
    client.on("close", () => this.#destroy(pair));
    upstream.on("close", () => this.#destroy(pair));
    upstream.once("connect", () => {
      // forwarded by hand (no pipe(): its drain handling would resume a connection paused by `hang`)
      client.on("data", (d) => upstream.write(d));
      upstream.on("data", (d) => client.write(d));
      client.on("end", () => upstream.end());
      upstream.on("end", () => client.end());
      pair.wired = true;
      if (this.#mode === "pass") client.resume();
      else upstream.pause(); // switched to hang between accept and connect
    });
  }

  #destroy(p: Pair): void {
    if (!this.#pairs.delete(p)) return;
    p.client.resetAndDestroy();
    p.upstream?.destroy();
  }

  /** Closes the listener and every connection. */
  async close(): Promise<void> {
    for (const p of this.#pairs) this.#destroy(p);
    for (const s of this.#held) s.destroy();
    this.#held.clear();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
