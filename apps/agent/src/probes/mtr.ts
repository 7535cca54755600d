import { randomBytes } from "node:crypto";
import { isIP } from "node:net";
import { buildEchoRequest, type Datagram, type Family, parseEchoReply, RawSocket } from "@svc/native";
import { describeError } from "./elapsed.ts";

/** A hop-by-hop trace toward address (an IPv4 or IPv6 literal). */
export interface MtrProbeTarget {
  address: string;
  /** highest TTL / hop limit probed (checkers.mtr.maxHops, 1-64) */
  maxHops: number;
  /** probes per hop; default 10 (mtr --report's default count) */
  rounds?: number;
  /** pause between rounds, ms; default 1000 (routers rate-limit their ICMP errors to about 1/s per host) */
  intervalMs?: number;
  /** how long each probe waits for its answer, ms; default 1000 */
  timeoutMs?: number;
  /** only unprivileged ping sockets, never a raw socket */
  forbidRaw?: boolean;
  /** aborting stops the trace at once: probes in flight count as lost, the result covers what was seen */
  signal?: AbortSignal;
}

/** One hop as spec §2.5 shapes it. ip "" = no answer from this hop (silent); rtt in ns (mean, 0 when silent). */
export interface MtrHop {
  number: number;
  ip: string;
  rtt: number;
  lossRatio: number;
}

/**
 * Outcome of a trace. hops: 1 up to the first hop that is the destination; when the destination never answered,
 * up to the last hop that answered (trailing silent hops are not listed). ok = the destination answered.
 */
export interface MtrResult {
  target: string;
  hops: MtrHop[];
  ok: boolean;
  error?: string;
}

interface HopStats {
  sent: number;
  rttsNs: number[];
  addresses: Map<string, number>;
  reached: boolean;
}

/** ICMP(v6) error types that carry a hop's answer, per family. */
const HOP_ERRORS: Record<Family, readonly number[]> = { 4: [3, 11, 12], 6: [1, 3, 4] };

/**
 * The state of one trace: answers per TTL. Every probe gets its own ICMP socket, open until its one answer or
 * its timeout: a socket that reported an error (time exceeded arrives through the error queue on ping sockets)
 * is no longer read (libuv stops a uv_poll handle on POLLERR and @svc/native does not re-arm it), and one
 * answer per socket is all a probe needs.
 */
class Trace {
  readonly hops = new Map<number, HopStats>();
  readonly #identifier: number;
  readonly #cookie = randomBytes(8);
  readonly #open = new Set<() => void>();
  #seq: number;
  #wake: (() => void) | undefined;

  constructor(
    readonly kind: "icmp-dgram" | "icmp-raw",
    readonly family: Family,
    readonly target: string,
  ) {
    this.#identifier = this.#cookie.readUInt16BE(0);
    this.#seq = this.#cookie.readUInt16BE(2);
  }

  /** Lowest TTL the destination answered so far. */
  destination(): number | undefined {
    let best: number | undefined;
    for (const [ttl, h] of this.hops) if (h.reached && (best === undefined || ttl < best)) best = ttl;
    return best;
  }

  /** Sends one echo request with this TTL on its own socket; its answer (if any) lands in hops. */
  send(ttl: number, timeoutMs: number): void {
    const seq = this.#seq;
    this.#seq = (seq + 1) & 0xffff;
    this.#stats(ttl).sent++;
    let socket: RawSocket;
    try {
      socket = RawSocket.open({ family: this.family, kind: this.kind, recvErr: this.kind === "icmp-dgram" });
    } catch {
      return; // no socket (fd limit...): counts as lost
    }
    const payload = Buffer.alloc(16);
    this.#cookie.copy(payload, 0);
    let sentAt = 0n;
    const done = (): void => {
      clearTimeout(timer);
      socket.close();
      this.#open.delete(done);
      this.#wake?.();
    };
    const answer = (from: string, at: bigint, reached: boolean): void => {
      const h = this.#stats(ttl);
      h.rttsNs.push(Number(at - sentAt));
      h.addresses.set(from, (h.addresses.get(from) ?? 0) + 1);
      if (reached || from === this.target) h.reached = true;
      done();
    };
    socket.onMessage((d) => this.#onMessage(d, seq, answer));
    socket.onError((e) => {
      // Ping sockets queue ICMP errors quoting our request (ICMP header first).
      // The socket is not read after an error, so anything else ends the probe as lost.
      const ours = e.origin !== "local" && e.data.length >= 8 && e.data.readUInt16BE(6) === seq;
      if (ours && e.offender !== undefined) answer(e.offender, process.hrtime.bigint(), false);
      else done();
    });
    const timer = setTimeout(done, timeoutMs);
    this.#open.add(done);
    try {
      sentAt = process.hrtime.bigint();
      socket.send(buildEchoRequest(this.family, this.#identifier, seq, payload), this.target, 0, { ttl });
    } catch {
      done(); // could not leave the host: counts as lost
    }
  }

  /** Resolves when no probe is in flight any more. */
  drained(): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = () => {
        if (this.#open.size > 0) return;
        this.#wake = undefined;
        resolve();
      };
      this.#wake();
    });
  }

  close(): void {
    for (const done of [...this.#open]) done();
  }

  #stats(ttl: number): HopStats {
    let h = this.hops.get(ttl);
    if (!h) {
      h = { sent: 0, rttsNs: [], addresses: new Map(), reached: false };
      this.hops.set(ttl, h);
    }
    return h;
  }

  #onMessage(d: Datagram, seq: number, answer: (from: string, at: bigint, reached: boolean) => void): void {
    const raw = this.kind === "icmp-raw";
    const reply = parseEchoReply(this.family, d.data);
    if (reply) {
      if (raw && reply.identifier !== this.#identifier) return;
      if (reply.sequence !== seq || !reply.payload.subarray(0, 8).equals(this.#cookie)) return;
      answer(d.address, d.receivedAt, true);
      return;
    }
    // Raw sockets get ICMP errors as messages: [type code csum unused][inner IP header][inner ICMP header].
    if (!raw || !HOP_ERRORS[this.family].includes(d.data[0] ?? -1)) return;
    const inner = 8 + (this.family === 4 ? ((d.data[8] ?? 0) & 0x0f) * 4 : 40);
    if (d.data.length < inner + 8 || d.data.readUInt16BE(inner + 4) !== this.#identifier) return;
    if (d.data.readUInt16BE(inner + 6) === seq) answer(d.address, d.receivedAt, false);
  }
}

/** The ICMP socket kind a trace uses: a ping socket when allowed, else raw (unless forbidden). */
function traceKind(family: Family, forbidRaw: boolean): "icmp-dgram" | "icmp-raw" {
  try {
    RawSocket.open({ family, kind: "icmp-dgram" }).close();
    return "icmp-dgram";
  } catch (err) {
    if (forbidRaw) throw err;
    RawSocket.open({ family, kind: "icmp-raw" }).close();
    return "icmp-raw";
  }
}

/** Waits ms, or less when signal aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

function mostFrequent(addresses: Map<string, number>): string {
  let best = "";
  let n = 0;
  for (const [a, c] of addresses) if (c > n) [best, n] = [a, c];
  return best;
}

/** Builds the §2.5 hop list from the per-TTL statistics. */
function summarize(trace: Trace, maxHops: number): MtrHop[] {
  const dest = trace.destination();
  let last = dest ?? 0;
  if (dest === undefined)
    for (const [ttl, h] of trace.hops) if (h.rttsNs.length > 0 && ttl > last && ttl <= maxHops) last = ttl;
  const hops: MtrHop[] = [];
  for (let ttl = 1; ttl <= last; ttl++) {
    const h = trace.hops.get(ttl);
    const got = h?.rttsNs.length ?? 0;
    const sent = h?.sent ?? 0;
    hops.push({
      number: ttl,
      ip: h ? mostFrequent(h.addresses) : "",
      rtt: got === 0 ? 0 : Math.round((h?.rttsNs ?? []).reduce((a, b) => a + b, 0) / got),
      lossRatio: sent === 0 ? 1 : 1 - got / sent,
    });
  }
  return hops;
}

/**
 * Traces the path to a peer like mtr: each round sends one ICMP echo request per TTL 1..N (N = maxHops until
 * the destination has answered, then the destination's hop), each on its own ICMP socket: an unprivileged ping
 * socket when ping_group_range admits the process (time-exceeded arrives through IP_RECVERR / IPV6_RECVERR),
 * else a raw socket (CAP_NET_RAW). Per hop: the most frequent answering address, the mean RTT of its answers
 * (send hrtime to receive), and loss = 1 - answers / probes sent with that TTL. Never rejects.
 */
export async function probeMtr(t: MtrProbeTarget): Promise<MtrResult> {
  const family = isIP(t.address);
  if (family !== 4 && family !== 6)
    return { target: t.address, hops: [], ok: false, error: `not an IP address: ${t.address}` };
  const maxHops = Math.max(1, Math.min(255, Math.floor(t.maxHops)));
  const rounds = Math.max(1, Math.floor(t.rounds ?? 10));
  const timeoutMs = t.timeoutMs ?? 1000;
  let kind: "icmp-dgram" | "icmp-raw";
  try {
    kind = traceKind(family, t.forbidRaw ?? false);
  } catch (err) {
    return {
      target: t.address,
      hops: [],
      ok: false,
      error: `cannot open ICMP socket: ${describeError(err)}`,
    };
  }
  const trace = new Trace(kind, family, t.address);
  try {
    const abort = (): void => trace.close();
    t.signal?.addEventListener("abort", abort, { once: true });
    for (let round = 0; round < rounds && !t.signal?.aborted; round++) {
      if (round > 0) await sleep(t.intervalMs ?? 1000, t.signal);
      if (t.signal?.aborted) break;
      const limit = Math.min(maxHops, trace.destination() ?? maxHops);
      for (let ttl = 1; ttl <= limit; ttl++) trace.send(ttl, timeoutMs);
    }
    await trace.drained();
    t.signal?.removeEventListener("abort", abort);
  } finally {
    trace.close();
  }
  const hops = summarize(trace, maxHops);
  const ok = trace.destination() !== undefined;
  const result: MtrResult = { target: t.address, hops, ok };
  if (!ok) result.error = `destination not reached within ${maxHops} hops`;
  return result;
}
