import { RawSocket, type RawSocketOptions } from "@svc/native";
import type { ProbeClock } from "../clock/probe-clock.ts";

/**
 * Receive buffer of a socket read once per clock batch (at least every grid tick while probes are in flight):
 * room for thousands of replies between reads (~100 wait at 1000 peers), and for the other processes' ICMP a
 * raw socket also receives.
 */
const BATCH_READ_RECV_BUFFER_BYTES = 1 << 20;

/** A prober's socket and how to close it. */
export interface ClockedSocket {
  socket: RawSocket;
  /** Stops the batch reads and closes the socket. */
  close(): void;
}

/**
 * Opens a prober's native socket (unref'd) read the way `clock` allows. On a batching clock nothing watches it:
 * it is read at the start of every batch (`onBatch`), so a reply costs no wake-up of its own, and the RTT is
 * still exact (the kernel's receive time). On plain timers it is read as datagrams arrive. Throws what
 * RawSocket.open throws.
 */
export function openClockedSocket(
  clock: ProbeClock,
  options: Omit<RawSocketOptions, "watch" | "recvBufferBytes">,
): ClockedSocket {
  const batched = clock.onBatch !== undefined;
  const socket = RawSocket.open({
    ...options,
    watch: !batched,
    recvBufferBytes: batched ? BATCH_READ_RECV_BUFFER_BYTES : undefined,
  }).unref();
  const unhook = clock.onBatch?.(() => socket.drain());
  return {
    socket,
    close() {
      unhook?.();
      socket.close();
    },
  };
}
