// Echoes and virtual-time helpers of the udp prober's tests (udp.test.ts, udp-prober.test.ts).
import dgram from "node:dgram";
import { readdirSync, readlinkSync } from "node:fs";
import { CoalescingClock, type ProbeClock, timerClock } from "../../clock/probe-clock.ts";
import type { VirtualTimers } from "../../clock/testdata/virtual-timers.ts";

/** A verbatim echo, optionally dropping datagrams by sequence number (byte 8-9 of the payload). */
export async function echo(
  type: "udp4" | "udp6",
  host: string,
  drop: (seq: number) => boolean = () => false,
): Promise<dgram.Socket> {
  const s = dgram.createSocket(type);
  s.on("message", (msg, rinfo) => {
    if (msg.length >= 10 && drop(msg.readUInt16BE(8))) return;
    s.send(msg, rinfo.port, rinfo.address);
  });
  await new Promise<void>((r) => s.bind(0, host, () => r()));
  return s;
}

/** Both ways replies are read: as they arrive (plain timers), and at the start of each clock batch. */
export const CLOCKS: readonly (readonly [string, () => ProbeClock])[] = [
  ["plain timers (socket watched)", () => timerClock],
  ["a batching clock (socket read per batch)", () => new CoalescingClock()],
];

/**
 * An in-process echo for probes in virtual time: counts the datagrams it read and the replies it has finished
 * sending, and keeps each datagram's sequence number and the send time the prober wrote in it (the clock's ms).
 */
export interface CountingEcho {
  socket: dgram.Socket;
  port: number;
  received: number;
  replied: number;
  datagrams: { seq: number; sentAt: number }[];
}

export async function countingEcho(
  type: "udp4" | "udp6",
  host: string,
  drop: (seq: number) => boolean = () => false,
): Promise<CountingEcho> {
  const s = dgram.createSocket(type);
  const e: CountingEcho = { socket: s, port: 0, received: 0, replied: 0, datagrams: [] };
  s.on("message", (msg, rinfo) => {
    e.received++;
    if (msg.length >= 18) e.datagrams.push({ seq: msg.readUInt16BE(8), sentAt: msg.readDoubleBE(10) });
    if (msg.length >= 10 && drop(msg.readUInt16BE(8))) {
      e.replied++;
      return;
    }
    s.send(msg, rinfo.port, rinfo.address, () => {
      e.replied++;
    });
  });
  await new Promise<void>((r) => s.bind(0, host, () => r()));
  e.port = s.address().port;
  return e;
}

/**
 * Lets the real sockets catch up with virtual time: a datagram sent on loopback is in the receiver's queue when
 * the send returns, so turns of the event loop (no wall-clock wait) until every echo has read what reached it
 * and finished sending its replies, which are then in the prober's socket for the next batch to read.
 */
export async function settleIo(echoes: readonly CountingEcho[]): Promise<void> {
  const count = () => echoes.reduce((n, e) => n + e.received, 0);
  for (let quiet = 0; quiet < 2; ) {
    const before = count();
    await new Promise((r) => setImmediate(r));
    quiet = count() === before && echoes.every((e) => e.replied === e.received) ? quiet + 1 : 0;
  }
}

/** Advances virtual time 1 ms at a time, letting the sockets catch up after each step, until `until()` or `ms`. */
export async function advance(
  timers: VirtualTimers,
  ms: number,
  echoes: readonly CountingEcho[],
  until: () => boolean = () => false,
): Promise<void> {
  for (let i = 0; i < ms && !until(); i++) {
    timers.advance(1);
    await settleIo(echoes);
  }
}

/** Socket file descriptors this process holds (the probers' native sockets are not Node handles). */
export function socketFds(): number {
  let n = 0;
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`).startsWith("socket:")) n++;
    } catch {
      // the directory's own fd, gone by now
    }
  }
  return n;
}

/** Settles with the runs' results; `done` says whether they have all finished. */
export function track<T>(runs: Promise<T>[]): { done: () => boolean; results: Promise<T[]> } {
  let finished = false;
  const results = Promise.all(runs).then((r) => {
    finished = true;
    return r;
  });
  return { done: () => finished, results };
}
