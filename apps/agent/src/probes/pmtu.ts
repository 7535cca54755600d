import { randomInt } from "node:crypto";
import { isIP } from "node:net";
import { constants } from "node:os";
import { RawSocket, type SocketError } from "@svc/native";
import { egressMtu } from "./egress-mtu.ts";
import { describeError } from "./elapsed.ts";

/** A pmtu probe: datagrams to the peer's UDP echo server. */
export interface PmtuProbeTarget {
  address: string;
  /** the peer's echo port (udpPort, fallback our own grpcPort) */
  port: number;
  /** how long each datagram may take to come back, ms */
  timeoutMs: number;
  /** IP packet size to probe (576-65535); 0 = the egress interface MTU toward the peer */
  size: number;
}

/** ok: full size echoed; reduced: the path announced a smaller MTU and that size crossed; blackhole: the full
 * size vanished while the small one crossed; failed: not even the small datagram crossed (or no socket/route). */
export type PmtuReading = "ok" | "reduced" | "blackhole" | "failed";

/**
 * Outcome of one pmtu probe. Every size is an IP packet size (IP header + UDP header + payload), the unit of an
 * interface MTU and of `tracepath -n`'s `pmtu N`. probeBytes: the full size probed. pmtuBytes: the largest size
 * seen to cross (full size for ok, the verified path MTU for reduced, for a black hole the largest size found
 * to cross by searching between the small datagram and the full size; absent for failed). ok: reading is ok or
 * reduced.
 */
export interface PmtuResult {
  reading: PmtuReading;
  ok: boolean;
  probeBytes: number;
  pmtuBytes?: number;
  error?: string;
}

const MAGIC = 0x53564350; // "SVCP"
const EMSGSIZE = 90;
/** magic u32, run id u32, packet size u32 */
const HEADER = 12;
const MAX_STEPS = 8;
/** Steps of the black-hole search: 1-byte precision from 576 up to 65535 takes at most 17. */
const SEARCH_STEPS = 17;
const errnoName = (n: number): string =>
  Object.entries(constants.errno).find(([, v]) => v === n)?.[0] ?? `errno ${n}`;

/** IP + UDP header bytes per family. */
export const PMTU_OVERHEAD = { 4: 28, 6: 48 } as const;

/**
 * One socket and the datagrams sent on it. A socket stops being read once the kernel reports an error on it
 * (libuv stops a uv_poll handle on POLLERR; @svc/native does not re-arm it), so every step of a probe uses a
 * fresh socket and treats the first error event as the end of that socket's useful life.
 */
class PmtuStep {
  readonly echoed = new Set<number>();
  hint: number | undefined;
  hardError: string | undefined;
  errored = false;
  #wake: (() => void) | undefined;

  constructor(
    readonly socket: RawSocket,
    readonly target: { address: string; port: number },
    readonly runId: number,
    readonly overhead: number,
  ) {
    socket.onMessage((d) => {
      const b = d.data;
      if (b.length < HEADER || b.readUInt32BE(0) !== MAGIC || b.readUInt32BE(4) !== runId) return;
      const size = b.readUInt32BE(8);
      if (size !== b.length + overhead) return;
      this.echoed.add(size);
      this.#wake?.();
    });
    socket.onError((e) => this.#onError(e));
  }

  #onError(e: SocketError): void {
    this.errored = true;
    if (e.errno === EMSGSIZE) {
      if (e.info > this.overhead + HEADER) this.noteMtu(e.info);
    } else if (e.origin !== "local") {
      this.hardError = `ICMP type ${e.type} code ${e.code} from ${e.offender ?? "?"} (${errnoName(e.errno)})`;
    }
    this.#wake?.();
  }

  noteMtu(mtu: number): void {
    if (this.hint === undefined || mtu < this.hint) this.hint = mtu;
  }

  /** Sends one datagram whose IP packet is `size` bytes; returns the local error code, if any. */
  send(size: number): string | undefined {
    const b = Buffer.alloc(size - this.overhead);
    b.writeUInt32BE(MAGIC, 0);
    b.writeUInt32BE(this.runId, 4);
    b.writeUInt32BE(size, 8);
    try {
      this.socket.send(b, this.target.address, this.target.port);
      return undefined;
    } catch (err) {
      const code = (err as { code?: string }).code ?? describeError(err);
      if (code !== "EMSGSIZE") this.hardError ??= `send: ${code}`;
      return code;
    }
  }

  /** Resolves when `done()` holds (checked at every event), at the first error event, or after ms. */
  wait(ms: number, done: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(finish, ms);
      this.#wake = () => {
        if (done() || this.errored) finish();
      };
      this.#wake();
    });
  }
}

function failed(probeBytes: number, error: string): PmtuResult {
  return { reading: "failed", ok: false, probeBytes, error };
}

/**
 * Probes the path MTU toward a peer's echo server. Connected UDP sockets (a fresh one per step, see PmtuStep),
 * IP_RECVERR, IP_PMTUDISC_PROBE /
 * IPV6_PMTUDISC_PROBE + IPV6_DONTFRAG: datagrams are never fragmented and are sent at the interface MTU even
 * when the kernel has cached a smaller path MTU for the peer (so a healed path reads ok again at once).
 * Sends a small datagram (576 bytes IPv4, 1280 IPv6, at most the full size) and a full-size one. When an ICMP
 * frag-needed / packet-too-big (or a local EMSGSIZE) announces a smaller MTU, a datagram of exactly that size is
 * sent to verify it (with the small one again when its echo may have gone unread); repeated for further
 * bottlenecks (at most 8 steps). In a black hole (the full size vanishes with no usable ICMP error while the small
 * one crosses) a binary search finds the largest size that crosses (at most 17 more steps: a failing step costs
 * timeoutMs, a crossing one a round trip). Each step waits at most timeoutMs.
 * Never rejects.
 */
export async function probePmtu(target: PmtuProbeTarget): Promise<PmtuResult> {
  const family = isIP(target.address);
  if (family !== 4 && family !== 6) return failed(target.size, `not an IP address: ${target.address}`);
  const overhead = PMTU_OVERHEAD[family];
  let ifaceMtu: number;
  try {
    ifaceMtu = await egressMtu(target.address);
  } catch (err) {
    return failed(target.size, `no route: ${describeError(err)}`);
  }
  const full = Math.min(target.size > 0 ? target.size : ifaceMtu, 65535);
  const small = Math.min(full, family === 4 ? 576 : 1280);
  const runId = randomInt(0, 2 ** 32 - 1);
  const crossed = new Set<number>();
  let hardError: string | undefined;
  /** a step ended at an error event, so an echo of the small datagram may have gone unread */
  let deafened = false;
  /** One step: sends `sizes` on a fresh socket, waits for `goal` (or an error, or timeoutMs). */
  const step = async (sizes: number[], goal: number): Promise<PmtuStep | undefined> => {
    let socket: RawSocket;
    try {
      socket = RawSocket.open({ family, kind: "udp", recvErr: true, pmtuDiscover: "probe" });
      socket.connect(target.address, target.port);
    } catch (err) {
      hardError = `cannot open socket: ${describeError(err)}`;
      return undefined;
    }
    const s = new PmtuStep(socket, target, runId, overhead);
    try {
      for (const size of sizes) {
        if (s.send(size) === "EMSGSIZE") s.noteMtu(Math.min(ifaceMtu, size - 1));
      }
      await s.wait(target.timeoutMs, () => s.echoed.has(goal) || s.hint !== undefined);
      return s;
    } finally {
      for (const size of s.echoed) crossed.add(size);
      hardError ??= s.hardError;
      deafened ||= s.errored;
      socket.close();
    }
  };
  const reading = (r: PmtuReading, pmtuBytes: number): PmtuResult => ({
    reading: r,
    ok: r === "ok" || r === "reduced",
    probeBytes: full,
    pmtuBytes,
  });

  let s = await step(small === full ? [full] : [small, full], full);
  if (crossed.has(full)) return reading("ok", full);
  let tried = full;
  let unverified: number | undefined;
  for (let i = 0; i < MAX_STEPS && s?.hint !== undefined && s.hint < tried; i++) {
    const m = s.hint;
    tried = m;
    s = await step(crossed.has(small) ? [m] : [small, m], m);
    if (crossed.has(m)) return reading("reduced", m);
    unverified = m;
  }
  if (!crossed.has(small) && deafened && hardError === undefined) await step([small], small);
  if (crossed.has(small) && small < full) {
    const what =
      unverified === undefined ? "no echo, no ICMP error" : `announced MTU ${unverified} did not cross`;
    // Packetization-layer search (as RFC 8899 does): the largest size that still crosses, between the small
    // size (crossed) and the smallest size seen to vanish; one datagram per step, each given timeoutMs.
    let lo = small;
    let hi = unverified !== undefined && unverified > small ? unverified : full;
    for (let i = 0; i < SEARCH_STEPS && hi - lo > 1; i++) {
      const mid = Math.floor((lo + hi) / 2);
      await step([mid], mid);
      if (crossed.has(mid)) lo = mid;
      else hi = mid;
    }
    return {
      ...reading("blackhole", lo),
      error: `${full}-byte datagram vanished while ${small} bytes crossed (${what}); ${lo} bytes is the largest size that crosses`,
    };
  }
  return failed(
    full,
    hardError ?? `no echo from ${target.address}:${target.port} within ${target.timeoutMs}ms`,
  );
}
