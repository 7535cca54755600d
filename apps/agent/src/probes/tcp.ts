import net from "node:net";
import { performance } from "node:perf_hooks";
import { describeError, elapsedMs } from "./elapsed.ts";

/** Where and how long a tcp probe may take. `address` is an IPv4 or IPv6 literal (or a host name). */
export interface TcpProbeTarget {
  address: string;
  port: number;
  timeoutMs: number;
}

/**
 * Outcome of one tcp probe. `ok` means the three-way handshake completed within the timeout.
 * `connectMs`: from the connect call to the established connection.
 * `totalMs`: from the connect call until the connection is fully closed: we send FIN right after connecting and
 * wait for the peer's FIN (the peer's server closes an idle connection it receives EOF on). Transport level only,
 * no application exchange. Absent when the close did not complete within the (same, overall) timeout.
 */
export interface TcpProbeResult {
  ok: boolean;
  error?: string;
  connectMs?: number;
  totalMs?: number;
}

/** Connects to address:port and closes again. Never throws for network outcomes. */
export function probeTcp(target: TcpProbeTarget): Promise<TcpProbeResult> {
  return new Promise((resolve) => {
    const start = performance.now();
    let connectMs: number | undefined;
    let settled = false;
    const socket = net.connect({ host: target.address, port: target.port });
    const finish = (result: TcpProbeResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => {
      if (connectMs === undefined) finish({ ok: false, error: `timeout after ${target.timeoutMs}ms` });
      else finish({ ok: true, connectMs });
    }, target.timeoutMs);
    socket.once("connect", () => {
      connectMs = elapsedMs(start);
      socket.resume();
      socket.end();
    });
    socket.once("close", () => {
      if (connectMs === undefined) finish({ ok: false, error: "connection closed before connect" });
      else finish({ ok: true, connectMs, totalMs: elapsedMs(start) });
    });
    socket.once("error", (err) => {
      if (connectMs === undefined) finish({ ok: false, error: describeError(err) });
      // An error after connect (e.g. RST instead of FIN) still means the handshake succeeded.
      else finish({ ok: true, connectMs });
    });
  });
}
