import { randomInt } from "node:crypto";
import dgram from "node:dgram";
import net from "node:net";
import { performance } from "node:perf_hooks";
import { describeError } from "./elapsed.ts";

/** A udp probe run: `packets` datagrams to the peer's echo server at address:port. */
export interface UdpProbeTarget {
  address: string;
  port: number;
  /** per-datagram reply deadline, ms (the checker timeout) */
  timeoutMs: number;
  packets: number;
}

/**
 * Outcome of one udp probe run. `ok` = at least one reply (lossRatio < 1).
 * `rttsMs`: round-trip times of the answered datagrams, in sequence order.
 * `jitterMs`: mean absolute difference between consecutive RTTs (the |D(i-1,i)| of RFC 3550 §6.4.1, averaged
 * plainly rather than smoothed with 1/16 gain, because a run has only a handful of packets); absent with fewer
 * than two replies. `lossRatio` = lost / sent, where a datagram is lost when no reply arrived within timeoutMs
 * of sending it (late replies are ignored).
 */
export interface UdpProbeResult {
  ok: boolean;
  error?: string;
  sent: number;
  received: number;
  lossRatio: number;
  rttsMs: number[];
  jitterMs?: number;
}

const MAGIC = 0x53564355; // "SVCU"
/** magic u32, probe id u32, sequence u16, send time f64 (ms, performance clock) */
const PAYLOAD_BYTES = 18;

/** Builds one probe datagram. Exported for the echo server's tests. */
export function encodeUdpProbe(probeId: number, seq: number, sentAt: number): Buffer {
  const b = Buffer.alloc(PAYLOAD_BYTES);
  b.writeUInt32BE(MAGIC, 0);
  b.writeUInt32BE(probeId, 4);
  b.writeUInt16BE(seq, 8);
  b.writeDoubleBE(sentAt, 10);
  return b;
}

function decode(b: Buffer): { probeId: number; seq: number } | undefined {
  if (b.length !== PAYLOAD_BYTES || b.readUInt32BE(0) !== MAGIC) return undefined;
  return { probeId: b.readUInt32BE(4), seq: b.readUInt16BE(8) };
}

/** Mean absolute difference between consecutive values; undefined with fewer than two. */
export function meanAbsDiff(values: readonly number[]): number | undefined {
  if (values.length < 2) return undefined;
  let sum = 0;
  for (let i = 1; i < values.length; i++) sum += Math.abs((values[i] ?? 0) - (values[i - 1] ?? 0));
  return sum / (values.length - 1);
}

/**
 * Sends the datagrams spaced evenly over one timeout window (gap = timeoutMs / packets), so consecutive packets
 * do not queue behind each other and the jitter reflects the path; each datagram then waits up to timeoutMs for
 * its echo. A run therefore takes less than 2 x timeoutMs. One socket per run, closed before resolving.
 * Replies are matched by a random per-run probe id and the sequence number, so stray or late datagrams
 * (from an earlier run or another sender) are ignored. Never throws for network outcomes.
 */
export function probeUdp(target: UdpProbeTarget): Promise<UdpProbeResult> {
  const packets = Math.max(1, Math.floor(target.packets));
  const probeId = randomInt(0, 2 ** 32 - 1);
  const socket = dgram.createSocket(net.isIPv6(target.address) ? "udp6" : "udp4");
  const sentAt: (number | undefined)[] = new Array(packets).fill(undefined);
  const rtts: (number | undefined)[] = new Array(packets).fill(undefined);
  const timers = new Set<NodeJS.Timeout>();
  let lastError: string | undefined;
  let sent = 0;
  let outstanding = packets;

  return new Promise((resolve) => {
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      for (const t of timers) clearTimeout(t);
      socket.close();
      const answered = rtts.filter((r): r is number => r !== undefined);
      const lossRatio = sent === 0 ? 1 : (sent - answered.length) / sent;
      const result: UdpProbeResult = {
        ok: answered.length > 0,
        sent,
        received: answered.length,
        lossRatio,
        rttsMs: answered,
      };
      const jitter = meanAbsDiff(answered);
      if (jitter !== undefined) result.jitterMs = jitter;
      if (!result.ok) result.error = lastError ?? `no reply within ${target.timeoutMs}ms`;
      resolve(result);
    };
    const settleOne = (): void => {
      outstanding--;
      if (outstanding === 0) finish();
    };
    const later = (ms: number, fn: () => void): void => {
      const t = setTimeout(() => {
        timers.delete(t);
        fn();
      }, ms);
      timers.add(t);
    };

    socket.on("message", (msg) => {
      const now = performance.now();
      const d = decode(msg);
      if (!d || d.probeId !== probeId || d.seq >= packets) return;
      const at = sentAt[d.seq];
      if (at === undefined || rtts[d.seq] !== undefined || now - at > target.timeoutMs) return;
      rtts[d.seq] = Math.round((now - at) * 1000) / 1000;
      settleOne();
    });
    socket.on("error", (err) => {
      lastError = describeError(err);
    });

    const sendOne = (seq: number): void => {
      if (done) return;
      const at = performance.now();
      sentAt[seq] = at;
      socket.send(encodeUdpProbe(probeId, seq, at), target.port, target.address, (err) => {
        if (err) {
          lastError = describeError(err);
          sentAt[seq] = undefined;
        }
      });
      sent++;
      later(target.timeoutMs, () => {
        if (rtts[seq] === undefined) settleOne();
      });
    };
    socket.bind(0, () => {
      const gap = target.timeoutMs / packets;
      sendOne(0);
      for (let seq = 1; seq < packets; seq++) later(gap * seq, () => sendOne(seq));
    });
  });
}
