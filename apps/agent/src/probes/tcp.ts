import net, { isIP } from "node:net";
import { performance } from "node:perf_hooks";
import { startTcpProbe, type TcpProbeHandle } from "@svc/native";
import { BATCH_GRID_MS, type ClockEntry, type ProbeClock, timerClock } from "../clock/probe-clock.ts";
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
 * `totalMs`: from the connect call until the peer ended the connection: we send FIN right after connecting and
 * wait for the peer's answer to it, its FIN or (an svc agent's listener, so that neither end keeps TIME_WAIT) its
 * reset. Transport level only, no application exchange. Absent when the peer did not answer within the (same,
 * overall) timeout; the connection is then reset.
 */
export interface TcpProbeResult {
  ok: boolean;
  error?: string;
  connectMs?: number;
  totalMs?: number;
}

/**
 * A timeout may be acted on up to this much late, ms, to share a wake-up (a tick of the batch grid); what
 * happened after the timeout itself does not count (judged by the measured times).
 */
const TIMEOUT_LATE_MS = BATCH_GRID_MS;

/** The result for what was measured, with anything past the timeout not counted (its deadline may run late). */
export function judgeTcp(
  target: TcpProbeTarget,
  connectMs: number | undefined,
  totalMs?: number,
): TcpProbeResult {
  if (connectMs === undefined || connectMs > target.timeoutMs)
    return { ok: false, error: `timeout after ${target.timeoutMs}ms` };
  if (totalMs === undefined || totalMs > target.timeoutMs) return { ok: true, connectMs };
  return { ok: true, connectMs, totalMs };
}

/**
 * Connects to address:port and closes again. Never throws for network outcomes. An IP literal (every peer)
 * is probed by the native prober: times taken in C where the events are seen, one callback per probe; a host
 * name goes through net.Socket (its DNS lookup counts as connect time there).
 */
export function probeTcp(target: TcpProbeTarget, clock: ProbeClock = timerClock): Promise<TcpProbeResult> {
  if (isIP(target.address.split("%")[0] ?? "") === 0) return probeTcpByName(target, clock);
  return new Promise((resolve) => {
    let settled = false;
    let timer: ClockEntry | undefined;
    const finish = (result: TcpProbeResult): void => {
      if (settled) return;
      settled = true;
      timer?.cancel();
      resolve(result);
    };
    let handle: TcpProbeHandle;
    try {
      handle = startTcpProbe(target.address, target.port, (o) => {
        if (o.connectMs === undefined) {
          const code = o.error?.code ?? "ECONNABORTED";
          finish({ ok: false, error: `${code}: connect ${code} ${target.address}:${target.port}` });
          return;
        }
        // An error after connect still means the handshake succeeded.
        finish(judgeTcp(target, o.connectMs, o.totalMs));
      });
    } catch (err) {
      finish({ ok: false, error: describeError(err) });
      return;
    }
    timer = clock.schedule(clock.now() + target.timeoutMs, () => finish(judgeTcp(target, handle.abort())), {
      late: TIMEOUT_LATE_MS,
    });
  });
}

/** probeTcp through net.Socket, for a host name. */
function probeTcpByName(target: TcpProbeTarget, clock: ProbeClock): Promise<TcpProbeResult> {
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
      () => finish(judgeTcp(target, connectMs)),
      { late: TIMEOUT_LATE_MS },
    );
    socket.once("connect", () => {
      connectMs = elapsedMs(start);
      socket.resume();
      socket.end();
    });
    socket.once("close", () => {
      if (connectMs === undefined) finish({ ok: false, error: "connection closed before connect" });
      else finish(judgeTcp(target, connectMs, elapsedMs(start)));
    });
    socket.once("error", (err) => {
      if (connectMs === undefined) finish({ ok: false, error: describeError(err) });
      else finish(judgeTcp(target, connectMs));
    });
  });
}

/**
 * A tcp prober whose timeouts go on `clock` (a CoalescingClock shares their wake-ups). Each probe's connect
 * call is made, and its start time read, in C when probe() is called, so probes started in the same batch do
 * not wait for each other. Results are those of probeTcp.
 */
export function createTcpProber(options: { clock?: ProbeClock } = {}): {
  probe(target: TcpProbeTarget): Promise<TcpProbeResult>;
} {
  const clock = options.clock ?? timerClock;
  return { probe: (target) => probeTcp(target, clock) };
}
