import { randomBytes } from "node:crypto";
import { isIP } from "node:net";
import {
  buildEchoRequest,
  type Datagram,
  type Family,
  icmpErrorName,
  parseEchoReply,
  putF64,
  type RawSocket,
  type RawSocketKind,
  type SocketError,
  u16,
} from "@svc/native";
import { BATCH_GRID_MS, type ClockEntry, type ProbeClock, timerClock } from "../clock/probe-clock.ts";
import { type ClockedSocket, openClockedSocket } from "./clocked-socket.ts";
import { describeError } from "./elapsed.ts";

/** What to ping. `address` is an IPv4 or IPv6 literal. */
export interface IcmpProbeTarget {
  address: string;
  /** Echo requests to send; default 1. */
  count?: number;
  /** Each request's reply deadline, counted from its own send. */
  timeoutMs: number;
  /** Spacing between requests; default 0 (back to back). */
  intervalMs?: number;
  /** Payload bytes after the ICMP header (at least 16); default 56 like ping. */
  payloadSize?: number;
}

/**
 * Outcome of one icmp probe. ok: at least one reply. rtts: milliseconds (ns resolution), one per reply, from
 * right before sendmsg to the kernel's receive time. rttMs: their mean. lossRatio: 1 - received/sent
 * (1 when nothing could be sent). error: the last send failure or ICMP error, or why the socket could not open.
 */
export interface IcmpResult {
  ok: boolean;
  rttMs?: number;
  rtts: number[];
  lossRatio: number;
  sent: number;
  received: number;
  error?: string;
}

/** Options of createIcmpProber. */
export interface IcmpProberOptions {
  /** Never fall back to a raw socket (only unprivileged ping sockets). */
  forbidRaw?: boolean;
  /** where reply deadlines are scheduled; default plain timers */
  clock?: ProbeClock;
}

/** A reply deadline may be checked up to this much late, ms, to share a wake-up (a tick of the batch grid). */
const DEADLINE_LATE_MS = BATCH_GRID_MS;

/** Pings many targets concurrently over one socket per family. */
export interface IcmpProber {
  probe(target: IcmpProbeTarget): Promise<IcmpResult>;
  /** The socket kind in use for family (opening it if needed), or undefined when none can be opened. */
  socketKind(family: Family): RawSocketKind | undefined;
  /** Closes the sockets; pending probes finish with their replies so far. */
  close(): void;
}

interface Pending {
  sentAt: bigint;
  onReply(rttMs: number): void;
  onError(message: string): void;
}

/** One socket of one family and the requests in flight on it, keyed by sequence number. */
class EchoChannel {
  readonly socket: RawSocket;
  readonly #family: Family;
  readonly #pending = new Map<number, Pending>();
  readonly #identifier: number;
  readonly #cookie: Buffer;
  #seq: number;

  readonly #clocked: ClockedSocket;

  /** On a batching clock the socket is read at the start of each batch (openClockedSocket). */
  constructor(family: Family, forbidRaw: boolean, clock: ProbeClock) {
    this.#family = family;
    this.#clocked = openClockedSocket(clock, { family, kind: "icmp", forbidRaw, recvErr: true });
    this.socket = this.#clocked.socket;
    this.#cookie = randomBytes(8);
    this.#identifier = this.#cookie.readUInt16BE(0);
    this.#seq = this.#cookie.readUInt16BE(2);
    this.socket.onMessage((d) => this.#onMessage(d));
    this.socket.onError((e) => this.#onSocketError(e));
  }

  close(): void {
    this.#clocked.close();
  }

  get inFlight(): number {
    return this.#pending.size;
  }

  /** Sends one request; returns its sequence number. Throws on local send errors. */
  send(address: string, payloadSize: number, pending: Pending): number {
    let seq = this.#seq;
    for (let i = 0; i < 65536 && this.#pending.has(seq); i++) seq = (seq + 1) & 0xffff;
    if (this.#pending.has(seq)) throw new Error("too many echo requests in flight");
    this.#seq = (seq + 1) & 0xffff;
    const payload = Buffer.alloc(Math.max(16, payloadSize));
    payload.set(this.#cookie, 0);
    // send time, ms (informational, as ping's; RTTs use the socket's clocks)
    putF64(payload, 8, performance.now());
    const packet = buildEchoRequest(this.#family, this.#identifier, seq, payload);
    this.socket.send(packet, address, 0);
    // stamped in C right before sendmsg: neither building the packet nor the send call is network time (the
    // receive side uses the kernel's timestamp)
    pending.sentAt = this.socket.lastSentAt();
    this.#pending.set(seq, pending);
    return seq;
  }

  forget(seq: number): void {
    this.#pending.delete(seq);
  }

  #onMessage(d: Datagram): void {
    const reply = parseEchoReply(this.#family, d.data);
    if (reply) {
      // A ping socket only sees replies to its own (kernel-rewritten) identifier; a raw socket sees every
      // process's replies, so it also checks ours and the cookie.
      const raw = this.socket.kind !== "icmp-dgram";
      if (raw && reply.identifier !== this.#identifier) return;
      if (!startsWith(reply.payload, this.#cookie)) return;
      const p = this.#pending.get(reply.sequence);
      if (!p) return;
      this.#pending.delete(reply.sequence);
      p.onReply(Number(d.receivedAt - p.sentAt) / 1e6);
      return;
    }
    // Raw sockets receive ICMP errors as messages quoting our request: [type code csum unused][IP hdr][icmp].
    const type = d.data[0] ?? -1;
    const name = icmpErrorName(this.#family, type, d.data[1] ?? 0);
    if (!name || d.data.length < 8) return;
    let inner = 8;
    if (this.#family === 4) inner += ((d.data[8] ?? 0) & 0x0f) * 4;
    else inner += 40;
    if (d.data.length < inner + 8) return;
    if (u16(d.data, inner + 4) !== this.#identifier) return;
    this.#failSeq(u16(d.data, inner + 6), `${name} from ${d.address} (code ${d.data[1]})`);
  }

  #onSocketError(e: SocketError): void {
    // Ping sockets quote the request they sent (ICMP header first) in the error queue.
    if (e.data.length < 8) return;
    const what =
      e.origin === "local"
        ? `local error ${e.errno}`
        : `${icmpErrorName(this.#family, e.type, e.code) ?? `icmp type ${e.type}`} from ${e.offender ?? "?"} (code ${e.code})`;
    this.#failSeq(u16(e.data, 6), what);
  }

  #failSeq(seq: number, message: string): void {
    const p = this.#pending.get(seq);
    if (!p) return;
    this.#pending.delete(seq);
    p.onError(message);
  }
}

/**
 * Creates an ICMP echo prober: one socket per family, shared by all in-flight probes (replies demultiplexed by
 * sequence number; raw sockets also by identifier and a per-prober cookie in the payload). Uses an unprivileged
 * ping socket when net.ipv4.ping_group_range admits the process, a raw socket (CAP_NET_RAW) otherwise.
 * probe() never rejects: failures are reported in the result.
 */
export function createIcmpProber(opts: IcmpProberOptions = {}): IcmpProber {
  const channels = new Map<Family, EchoChannel>();
  const openErrors = new Map<Family, string>();
  const clock = opts.clock ?? timerClock;
  let closed = false;

  const channel = (family: Family): EchoChannel | undefined => {
    const c = channels.get(family);
    if (c || closed) return c;
    try {
      const n = new EchoChannel(family, opts.forbidRaw ?? false, clock);
      channels.set(family, n);
      openErrors.delete(family);
      return n;
    } catch (err) {
      openErrors.set(family, describeError(err));
      return undefined;
    }
  };

  const probe = async (target: IcmpProbeTarget): Promise<IcmpResult> => {
    const family = isIP(target.address);
    const count = Math.max(1, Math.floor(target.count ?? 1));
    const fail = (error: string): IcmpResult => ({
      ok: false,
      rtts: [],
      lossRatio: 1,
      sent: 0,
      received: 0,
      error,
    });
    if (family !== 4 && family !== 6) return fail(`not an IP address: ${target.address}`);
    if (closed) return fail("prober closed");
    const ch = channel(family);
    if (!ch) return fail(`cannot open ICMP socket: ${openErrors.get(family) ?? "unknown"}`);
    const rtts: number[] = [];
    let sent = 0;
    let lastError: string | undefined;
    const waits: Promise<void>[] = [];
    for (let i = 0; i < count; i++) {
      if (i > 0 && (target.intervalMs ?? 0) > 0) await new Promise((r) => setTimeout(r, target.intervalMs));
      if (closed) break;
      waits.push(
        new Promise<void>((resolve) => {
          let seq = -1;
          let timer: ClockEntry | undefined;
          const done = (): void => {
            timer?.cancel();
            resolve();
          };
          const pending: Pending = {
            sentAt: 0n,
            onReply: (ms) => {
              // a reply later than the timeout is lost, also when read before its (slack) deadline ran
              if (ms <= target.timeoutMs) rtts.push(ms);
              done();
            },
            onError: (message) => {
              lastError = message;
              done();
            },
          };
          try {
            seq = ch.send(target.address, target.payloadSize ?? 56, pending);
            sent++;
          } catch (err) {
            lastError = describeError(err);
            sent++; // a request that could not leave the host counts as lost
            resolve();
            return;
          }
          const deadline = () => {
            ch.forget(seq);
            resolve();
          };
          timer = clock.schedule(clock.now() + target.timeoutMs, deadline, { late: DEADLINE_LATE_MS });
        }),
      );
    }
    await Promise.all(waits);
    const received = rtts.length;
    const result: IcmpResult = {
      ok: received > 0,
      rtts,
      lossRatio: sent === 0 ? 1 : 1 - received / sent,
      sent,
      received,
    };
    if (received > 0) result.rttMs = rtts.reduce((a, b) => a + b, 0) / received;
    if (received < sent && lastError) result.error = lastError;
    else if (received === 0) result.error = lastError ?? "timeout";
    return result;
  };

  return {
    probe,
    socketKind: (family) => channel(family)?.socket.kind,
    close: () => {
      closed = true;
      for (const c of channels.values()) c.close();
      channels.clear();
    },
  };
}

/** Whether bytes begins with prefix (a byte loop: no view or call per reply). */
function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}
