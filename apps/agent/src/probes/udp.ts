import { randomInt } from "node:crypto";
import net from "node:net";
import {
  type Datagram,
  type Family,
  icmpErrorName,
  putF64,
  putU16,
  putU32,
  type SocketError,
  u16,
  u32,
} from "@svc/native";
import {
  BATCH_GRID_MS,
  type ClockEntry,
  gridCeil,
  type ProbeClock,
  timerClock,
} from "../clock/probe-clock.ts";
import { type ClockedSocket, openClockedSocket } from "./clocked-socket.ts";
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
/** magic u32, probe id u32, sequence u16, send time f64 (ms; informational, RTTs use the socket's clocks) */
const PAYLOAD_BYTES = 18;

/** Builds one probe datagram. Exported for the echo server's tests. */
export function encodeUdpProbe(probeId: number, seq: number, sentAt: number): Buffer {
  // every byte is written (so no zero fill); byte writes, not Buffer's checked methods (@svc/native/bytes)
  const b = Buffer.allocUnsafe(PAYLOAD_BYTES);
  putU32(b, 0, MAGIC);
  putU32(b, 4, probeId);
  putU16(b, 8, seq);
  putF64(b, 10, sentAt);
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

/** Options of createUdpProber and probeUdp. */
export interface UdpProberOptions {
  /** where sends and deadlines are scheduled; default plain timers */
  clock?: ProbeClock;
}

/** A reply deadline may be checked up to this much late, ms (a late reply still counts as lost). */
const DEADLINE_LATE_MS = BATCH_GRID_MS;

/** A run in flight on a channel: told about each reply to it and about errors on its datagrams. */
interface RunHandle {
  /** seq of the reply, and when it arrived (hrtime ns, the kernel's receive time) */
  onReply(seq: number, receivedAt: bigint): void;
  onSocketError(message: string): void;
  /** the channel closed under the run */
  onClose(): void;
}

/** Text for an error-queue entry about one of our datagrams (ICMP port unreachable, host unreachable...). */
function describeSocketError(family: Family, e: SocketError): string {
  if (e.origin === "local") return `local error (errno ${e.errno})`;
  const name = icmpErrorName(family, e.type, e.code) ?? `icmp type ${e.type} code ${e.code}`;
  return e.offender ? `${name} from ${e.offender}` : name;
}

/**
 * One socket of one family shared by every run in flight, replies demultiplexed by probe id. Opened by the
 * first run; with `keepOpen` it stays open until close() (a run after that opens a new one) (one source port for the prober's life, so each
 * peer's runs refresh one conntrack flow instead of opening a new one per round: docs/decisions.md), else it
 * closes when the last run finishes. It never keeps the process alive (the socket is unref'd). A native socket: the send time is read right before sendmsg and the
 * receive time is the kernel's, so neither the event loop nor other work in the same turn is counted as RTT.
 * ICMP errors about our datagrams (port unreachable...) reach the run that sent them.
 */
class UdpChannel {
  readonly #family: Family;
  readonly #clock: ProbeClock;
  readonly #runs = new Map<number, RunHandle>();
  #socket: ClockedSocket | undefined;
  #openError: string | undefined;
  readonly #keepOpen: boolean;

  constructor(family: Family, clock: ProbeClock, keepOpen: boolean) {
    this.#family = family;
    this.#clock = clock;
    this.#keepOpen = keepOpen;
  }

  /** Registers a run under a fresh probe id. */
  join(run: RunHandle): number {
    let probeId = randomInt(0, 2 ** 32 - 1);
    while (this.#runs.has(probeId)) probeId = randomInt(0, 2 ** 32 - 1);
    this.#runs.set(probeId, run);
    if (!this.#socket) this.#open();
    return probeId;
  }

  /** Unregisters a run; without keepOpen the socket closes with the last one. */
  leave(probeId: number): void {
    if (!this.#runs.delete(probeId) || this.#runs.size > 0 || this.#keepOpen) return;
    this.#closeSocket();
  }

  /** Sends one datagram; returns when it left (hrtime ns) or throws the local error. */
  send(buf: Buffer, port: number, address: string): bigint {
    const socket = this.#socket;
    if (!socket) throw new Error(this.#openError ?? "socket closed");
    socket.socket.send(buf, address, port);
    return socket.socket.lastSentAt();
  }

  close(): void {
    const runs = [...this.#runs.values()];
    this.#runs.clear();
    this.#closeSocket();
    for (const r of runs) r.onClose();
  }

  #open(): void {
    try {
      // on a batching clock read per batch: every run in flight has a deadline there
      const clocked = openClockedSocket(this.#clock, { family: this.#family, kind: "udp", recvErr: true });
      const { socket } = clocked;
      socket.onMessage((d: Datagram) => {
        const msg = d.data;
        if (msg.length !== PAYLOAD_BYTES || u32(msg, 0) !== MAGIC) return;
        this.#runs.get(u32(msg, 4))?.onReply(u16(msg, 8), d.receivedAt);
      });
      socket.onError((e) => {
        if (e.data.length < 8 || u32(e.data, 0) !== MAGIC) return;
        this.#runs.get(u32(e.data, 4))?.onSocketError(describeSocketError(this.#family, e));
      });
      this.#socket = clocked;
      this.#openError = undefined;
    } catch (err) {
      // the runs' sends fail with this and they time out as lost
      this.#openError = `cannot open udp socket: ${describeError(err)}`;
    }
  }

  #closeSocket(): void {
    const socket = this.#socket;
    this.#socket = undefined;
    socket?.close();
  }
}

/**
 * Sends the datagrams spaced over one timeout window (gap = timeoutMs / packets, but at least one BATCH_GRID_MS
 * tick when the timeout allows; then each send after the first goes on a tick of the batch grid, so every run
 * in flight shares the wake-ups), so consecutive packets do not queue behind each other and the jitter reflects
 * the path; each datagram then waits up to timeoutMs for its echo. A run takes about (packets - 1) x gap +
 * timeoutMs (plus the clock's slack). Replies are matched by a random per-run probe id and the sequence number,
 * so stray or late datagrams (from an earlier run or another sender) are ignored. Never throws for network
 * outcomes.
 */
function runProbe(channel: UdpChannel, clock: ProbeClock, target: UdpProbeTarget): Promise<UdpProbeResult> {
  const packets = Math.max(1, Math.floor(target.packets));
  const timeoutMs = target.timeoutMs;
  const timeoutNs = BigInt(Math.round(timeoutMs * 1e6));
  // the mean spacing of datagrams: over one timeout window, but at least one tick of the batch grid as long as
  // that is within the timeout (a run then lasts at most about packets x timeout, the config warning's bound)
  const gap = Math.max(timeoutMs / packets, Math.min(BATCH_GRID_MS, timeoutMs));
  const onGrid = gap >= BATCH_GRID_MS;
  /** hrtime ns each datagram left at; undefined = not sent (or its send failed) */
  const sentAt: (bigint | undefined)[] = new Array(packets).fill(undefined);
  /** performance clock ms each datagram's deadline counts from */
  const sentMs: number[] = new Array(packets).fill(0);
  const rtts: (number | undefined)[] = new Array(packets).fill(undefined);
  let lastError: string | undefined;
  let sent = 0;
  /** datagrams whose fate (reply or deadline) is still open, counting those not yet sent */
  let outstanding = packets;
  /** next datagram to send, and the oldest one whose deadline has not been checked yet */
  let nextSend = 0;
  let nextDeadline = 0;
  let sendEntry: ClockEntry | undefined;
  let deadlineEntry: ClockEntry | undefined;
  let done = false;
  let probeId = 0;

  return new Promise((resolve) => {
    const finish = (): void => {
      if (done) return;
      done = true;
      sendEntry?.cancel();
      deadlineEntry?.cancel();
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
    /** Settles every sent, unanswered datagram whose deadline has passed; schedules the next deadline. */
    const checkDeadlines = (now: number): void => {
      deadlineEntry = undefined;
      while (nextDeadline < nextSend && !done) {
        const seq = nextDeadline;
        const at = (sentMs[seq] ?? 0) + timeoutMs;
        if (at > now) {
          deadlineEntry = clock.schedule(at, checkDeadlines, { late: DEADLINE_LATE_MS });
          return;
        }
        nextDeadline++;
        if (rtts[seq] === undefined) settleOne();
      }
    };
    const sendNext = (now: number): void => {
      sendEntry = undefined;
      if (done) return;
      const seq = nextSend++;
      sentMs[seq] = now;
      sent++;
      try {
        sentAt[seq] = channel.send(encodeUdpProbe(probeId, seq, now), target.port, target.address);
      } catch (err) {
        lastError = describeError(err);
      }
      if (deadlineEntry === undefined)
        deadlineEntry = clock.schedule(now + timeoutMs, checkDeadlines, { late: DEADLINE_LATE_MS });
      // the next send goes on the first grid tick from gap - half a tick on (every run's sends share ticks):
      // spacing in [gap - tick/2, gap + tick/2), gap on average. Below a tick: gap apart, up to half of it early.
      if (nextSend < packets)
        sendEntry = onGrid
          ? clock.schedule(gridCeil(now + gap - BATCH_GRID_MS / 2), sendNext)
          : clock.schedule(now + gap, sendNext, { early: gap / 2 });
    };

    probeId = channel.join({
      onReply(seq, receivedAt) {
        // seq < nextDeadline: already judged (its deadline check may run before a reply read in the same turn)
        if (done || seq >= packets || seq < nextDeadline) return;
        const at = sentAt[seq];
        if (at === undefined || rtts[seq] !== undefined) return;
        const rttNs = receivedAt - at;
        if (rttNs > timeoutNs) return;
        rtts[seq] = Math.round(Number(rttNs) / 1000) / 1000;
        settleOne();
      },
      onSocketError(message) {
        lastError = message;
      },
      onClose() {
        finish();
      },
    });
    sendNext(clock.now());
  });
}

/**
 * A udp prober whose runs share one socket per address family (ephemeral port, unref'd), opened by the first
 * run and kept until close(): every run to a peer leaves from the same source port, so the peer's rounds
 * refresh one conntrack flow (on each end) rather than opening one per round, and at hundreds of peers no run
 * pays a socket create/bind/close. Results are those of probeUdp.
 */
export function createUdpProber(options: UdpProberOptions = {}): SharedUdpProber {
  const clock = options.clock ?? timerClock;
  const channels = { 4: new UdpChannel(4, clock, true), 6: new UdpChannel(6, clock, true) };
  return {
    probe: (target) => runProbe(net.isIPv6(target.address) ? channels[6] : channels[4], clock, target),
    close() {
      channels[4].close();
      channels[6].close();
    },
  };
}

/**
 * One udp probe run on a socket of its own, closed before resolving (createUdpProber shares sockets between
 * concurrent runs). Sends `packets` datagrams spaced evenly over one timeout window; each waits up to
 * timeoutMs for its echo. Never throws for network outcomes.
 */
export function probeUdp(target: UdpProbeTarget, options: UdpProberOptions = {}): Promise<UdpProbeResult> {
  const clock = options.clock ?? timerClock;
  const channel = new UdpChannel(net.isIPv6(target.address) ? 6 : 4, clock, false);
  return runProbe(channel, clock, target);
}
