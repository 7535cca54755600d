import { isIP } from "node:net";
import { loadBinding, type NativeHandle } from "./binding.ts";

/** How a native tcp probe ended. Times are ms from right before the connect call, to the microsecond. */
export interface TcpProbeOutcome {
  /** errno name and text when the connect failed, or the connection broke before an orderly close */
  error?: { code: string; message: string };
  /** the handshake completed (seen on the event loop, or at once when the kernel finished it in connect) */
  connectMs?: number;
  /**
   * our FIN sent right after connecting, the peer's answer received: its FIN, or the reset an svc agent's
   * listener answers a bare FIN with (so neither end keeps TIME_WAIT): the connection ended at the peer's word
   */
  totalMs?: number;
}

/** A tcp probe in flight. */
export interface TcpProbeHandle {
  /** Closes the socket now; onDone is not called. Returns the connect time when it had connected. */
  abort(): number | undefined;
}

const toMs = (ns: number): number | undefined => (ns < 0 ? undefined : Math.round(ns / 1000) / 1000);

/**
 * Connects to address:port (an IPv4 or IPv6 literal), sends FIN once connected and waits for the peer's FIN or
 * reset, then closes: one native socket and one callback per probe. The socket lingers 0, so an abort (or a
 * close before the peer answered) resets the connection instead of leaving it to end in TIME_WAIT. Throws a NativeSocketError when the connect call
 * itself fails (ENETUNREACH...) and a TypeError for a bad address or port; other failures reach onDone.
 * No timeout of its own: the caller aborts.
 */
export function startTcpProbe(
  address: string,
  port: number,
  onDone: (outcome: TcpProbeOutcome) => void,
): TcpProbeHandle {
  const family = isIP(address.split("%")[0] ?? "");
  if (family !== 4 && family !== 6) throw new TypeError(`not an IP literal: ${address}`);
  const binding = loadBinding();
  const handle: NativeHandle = binding.tcpProbe(
    family,
    address,
    port,
    (code, message, connectNs, totalNs) => {
      const outcome: TcpProbeOutcome = {};
      if (code !== undefined) outcome.error = { code, message: message ?? code };
      const connectMs = toMs(connectNs);
      if (connectMs !== undefined) outcome.connectMs = connectMs;
      const totalMs = toMs(totalNs);
      if (totalMs !== undefined) outcome.totalMs = totalMs;
      onDone(outcome);
    },
  );
  return { abort: () => toMs(binding.tcpProbeAbort(handle)) };
}
