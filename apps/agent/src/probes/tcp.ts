import net from "node:net";
import { performance } from "node:perf_hooks";
import { type ClockEntry, type ProbeClock, timerClock } from "../clock/probe-clock.ts";
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

/** A timeout may be acted on up to this much late, ms, to share a wake-up (the result says what it saw). */
const TIMEOUT_LATE_MS = 50;

/** Connects to address:port and closes again. Never throws for network outcomes. */
export function probeTcp(target: TcpProbeTarget, clock: ProbeClock = timerClock): Promise<TcpProbeResult> {
  return new Promise((resolve) => {
    const start = performance.now();
    let connectMs: number | undefined;
    let settled = false;
    const socket = net.connect({ host: target.address, port: target.port });
    const finish = (result: TcpProbeResult): void => {
      if (settled) return;
      settled = true;
      timer.cancel();
      socket.destroy();
      resolve(result);
    };
    const timer: ClockEntry = clock.schedule(
      start + target.timeoutMs,
      () => {
        if (connectMs === undefined) finish({ ok: false, error: `timeout after ${target.timeoutMs}ms` });
        else finish({ ok: true, connectMs });
      },
      { late: TIMEOUT_LATE_MS },
    );
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

/**
 * A tcp prober for batched starts: probes asked for in the same turn of the event loop (a CoalescingClock
 * batch) start one per turn (setImmediate), so each one's connect call is made right after its start time is
 * read and its connect is seen on the next turn, instead of both waiting for the rest of the batch (Node makes
 * the connect call for an IP literal on the next tick, after the current callback's synchronous work).
 * Timeouts go on `clock`. Results are those of probeTcp.
 */
export function createTcpProber(options: { clock?: ProbeClock } = {}): {
  probe(target: TcpProbeTarget): Promise<TcpProbeResult>;
} {
  const clock = options.clock ?? timerClock;
  const queue: (() => void)[] = [];
  let draining = false;
  const drain = (): void => {
    queue.shift()?.();
    if (queue.length > 0) setImmediate(drain);
    else draining = false;
  };
  return {
    probe: (target) =>
      new Promise((resolve) => {
        queue.push(() => {
          probeTcp(target, clock).then(resolve);
        });
        if (!draining) {
          draining = true;
          setImmediate(drain);
        }
      }),
  };
}
