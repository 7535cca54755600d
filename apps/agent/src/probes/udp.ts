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

/** Mean absolute difference between consecutive values; undefined with fewer than two. */
export function meanAbsDiff(values: readonly number[]): number | undefined {
  if (values.length < 2) return undefined;
  let sum = 0;
  for (let i = 1; i < values.length; i++) sum += Math.abs((values[i] ?? 0) - (values[i - 1] ?? 0));
  return sum / (values.length - 1);
}

/** Runs udp probes; see createUdpProber. */
export interface SharedUdpProber {
  probe(target: UdpProbeTarget): Promise<UdpProbeResult>;
  /** Closes the open sockets now; runs in flight finish with the replies they have (the rest count as lost). */
  close(): void;
}

/** A run in flight on a channel: told about each reply to it and about socket errors. */
interface RunHandle {
  onReply(seq: number, at: number): void;
  onSocketError(message: string): void;
  /** the channel closed under the run */
  onClose(): void;
}

/**
 * One socket of one family shared by every run in flight, replies demultiplexed by probe id. Opened by the
 * first run and closed when the last one finishes, so an idle prober holds no socket (and never keeps the
 * process alive: the socket is unref'd).
 */
class UdpChannel {
  readonly #type: "udp4" | "udp6";
  readonly #runs = new Map<number, RunHandle>();
  #socket: dgram.Socket | undefined;
  #bound: Promise<void> | undefined;

  constructor(type: "udp4" | "udp6") {
    this.#type = type;
  }

  /** Registers a run under a fresh probe id; resolves once the socket is bound. */
  join(run: RunHandle): { probeId: number; bound: Promise<void> } {
    let probeId = randomInt(0, 2 ** 32 - 1);
    while (this.#runs.has(probeId)) probeId = randomInt(0, 2 ** 32 - 1);
    this.#runs.set(probeId, run);
    if (!this.#socket) this.#open();
    return { probeId, bound: this.#bound ?? Promise.resolve() };
  }

  /** Unregisters a run; the socket closes with the last one. */
  leave(probeId: number): void {
    if (!this.#runs.delete(probeId) || this.#runs.size > 0) return;
    this.#closeSocket();
  }

  send(buf: Buffer, port: number, address: string, cb: (err: Error | null) => void): void {
    if (this.#socket) this.#socket.send(buf, port, address, cb);
    else cb(new Error("socket closed"));
  }

  close(): void {
    const runs = [...this.#runs.values()];
    this.#runs.clear();
    this.#closeSocket();
    for (const r of runs) r.onClose();
  }

  #open(): void {
    const socket = dgram.createSocket(this.#type);
    this.#socket = socket;
    socket.on("message", (msg) => {
      const now = performance.now();
      if (msg.length !== PAYLOAD_BYTES || msg.readUInt32BE(0) !== MAGIC) return;
      this.#runs.get(msg.readUInt32BE(4))?.onReply(msg.readUInt16BE(8), now);
    });
    socket.on("error", (err) => {
      const message = describeError(err);
      for (const r of this.#runs.values()) r.onSocketError(message);
    });
    this.#bound = new Promise((resolve) => {
      // a failed bind surfaces through "error" and the sends' callbacks; the runs then time out
      socket.once("error", () => resolve());
      socket.bind(0, () => {
        socket.unref();
        resolve();
      });
    });
  }

  #closeSocket(): void {
    const socket = this.#socket;
    this.#socket = undefined;
    this.#bound = undefined;
    socket?.close();
  }
}

/**
 * Sends the datagrams spaced evenly over one timeout window (gap = timeoutMs / packets), so consecutive packets
 * do not queue behind each other and the jitter reflects the path; each datagram then waits up to timeoutMs for
 * its echo. A run therefore takes less than 2 x timeoutMs. Replies are matched by a random per-run probe id and
 * the sequence number, so stray or late datagrams (from an earlier run or another sender) are ignored.
 * Never throws for network outcomes.
 */
function runProbe(channel: UdpChannel, target: UdpProbeTarget): Promise<UdpProbeResult> {
  const packets = Math.max(1, Math.floor(target.packets));
  const timeoutMs = target.timeoutMs;
  const gap = timeoutMs / packets;
  const sentAt: (number | undefined)[] = new Array(packets).fill(undefined);
  const rtts: (number | undefined)[] = new Array(packets).fill(undefined);
  let lastError: string | undefined;
  let sent = 0;
  /** datagrams whose fate (reply or deadline) is still open, counting those not yet sent */
  let outstanding = packets;
  /** next datagram to send, and the oldest one whose deadline has not been checked yet */
  let nextSend = 0;
  let nextDeadline = 0;
  let sendTimer: NodeJS.Timeout | undefined;
  let deadlineTimer: NodeJS.Timeout | undefined;
  let done = false;
  let t0 = 0;

  return new Promise((resolve) => {
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(sendTimer);
      clearTimeout(deadlineTimer);
      channel.leave(probeId);
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
      if (!result.ok) result.error = lastError ?? `no reply within ${timeoutMs}ms`;
      resolve(result);
    };
    const settleOne = (): void => {
      outstanding--;
      if (outstanding === 0) finish();
    };
    /** Settles every sent, unanswered datagram whose deadline has passed; re-arms for the next deadline. */
    const checkDeadlines = (): void => {
      deadlineTimer = undefined;
      const now = performance.now();
      while (nextDeadline < nextSend && !done) {
        const seq = nextDeadline;
        const at = (sentAt[seq] ?? t0 + gap * seq) + timeoutMs;
        if (at > now) {
          deadlineTimer = setTimeout(checkDeadlines, at - now);
          return;
        }
        nextDeadline++;
        if (rtts[seq] === undefined) settleOne();
      }
    };
    const sendNext = (): void => {
      sendTimer = undefined;
      if (done) return;
      const seq = nextSend++;
      const at = performance.now();
      sentAt[seq] = at;
      channel.send(encodeUdpProbe(probeId, seq, at), target.port, target.address, (err) => {
        if (err) {
          lastError = describeError(err);
          sentAt[seq] = undefined;
        }
      });
      sent++;
      if (deadlineTimer === undefined) deadlineTimer = setTimeout(checkDeadlines, timeoutMs);
      if (nextSend < packets)
        sendTimer = setTimeout(sendNext, Math.max(0, t0 + gap * nextSend - performance.now()));
    };

    const { probeId, bound } = channel.join({
      onReply(seq, now) {
        if (done || seq >= packets) return;
        const at = sentAt[seq];
        if (at === undefined || rtts[seq] !== undefined || now - at > timeoutMs) return;
        rtts[seq] = Math.round((now - at) * 1000) / 1000;
        settleOne();
      },
      onSocketError(message) {
        lastError = message;
      },
      onClose() {
        finish();
      },
    });
    void bound.then(() => {
      if (done) return;
      t0 = performance.now();
      sendNext();
    });
  });
}

/**
 * A udp prober whose runs share one socket per address family (bound to an ephemeral port, unref'd), opened
 * by the first run in flight and closed when the last finishes: at hundreds of peers that saves a socket
 * create/bind/close per run. Results are those of probeUdp.
 */
export function createUdpProber(): SharedUdpProber {
  const channels = { udp4: new UdpChannel("udp4"), udp6: new UdpChannel("udp6") };
  return {
    probe: (target) => runProbe(net.isIPv6(target.address) ? channels.udp6 : channels.udp4, target),
    close() {
      channels.udp4.close();
      channels.udp6.close();
    },
  };
}

/**
 * One udp probe run on a socket of its own, closed before resolving (createUdpProber shares sockets between
 * concurrent runs). Sends `packets` datagrams spaced evenly over one timeout window; each waits up to
 * timeoutMs for its echo. Never throws for network outcomes.
 */
export function probeUdp(target: UdpProbeTarget): Promise<UdpProbeResult> {
  return runProbe(new UdpChannel(net.isIPv6(target.address) ? "udp6" : "udp4"), target);
}
