import assert from "node:assert/strict";
import dgram from "node:dgram";
import { readdirSync, readlinkSync } from "node:fs";
import { test } from "node:test";
import { BATCH_GRID_MS, CoalescingClock, type ProbeClock, timerClock } from "../clock/probe-clock.ts";
import { VirtualTimers } from "../clock/testdata/virtual-timers.ts";
import { createUdpProber, meanAbsDiff, probeUdp, type UdpProbeResult } from "./udp.ts";

/** A verbatim echo, optionally dropping datagrams by sequence number (byte 8-9 of the payload). */
async function echo(
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
const CLOCKS: readonly (readonly [string, () => ProbeClock])[] = [
  ["plain timers (socket watched)", () => timerClock],
  ["a batching clock (socket read per batch)", () => new CoalescingClock()],
];

/**
 * An in-process echo for probes in virtual time: counts the datagrams it read and the replies it has finished
 * sending, and keeps each datagram's sequence number and the send time the prober wrote in it (the clock's ms).
 */
interface CountingEcho {
  socket: dgram.Socket;
  port: number;
  received: number;
  replied: number;
  datagrams: { seq: number; sentAt: number }[];
}

async function countingEcho(
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
async function settleIo(echoes: readonly CountingEcho[]): Promise<void> {
  const count = () => echoes.reduce((n, e) => n + e.received, 0);
  for (let quiet = 0; quiet < 2; ) {
    const before = count();
    await new Promise((r) => setImmediate(r));
    quiet = count() === before && echoes.every((e) => e.replied === e.received) ? quiet + 1 : 0;
  }
}

/** Advances virtual time 1 ms at a time, letting the sockets catch up after each step, until `until()` or `ms`. */
async function advance(
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
function socketFds(): number {
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
function track<T>(runs: Promise<T>[]): { done: () => boolean; results: Promise<T[]> } {
  let finished = false;
  const results = Promise.all(runs).then((r) => {
    finished = true;
    return r;
  });
  return { done: () => finished, results };
}

for (const [via, clock] of CLOCKS) {
  for (const [type, host] of [
    ["udp4", "127.0.0.1"],
    ["udp6", "::1"],
  ] as const) {
    test(`udp probe measures every echoed datagram over ${host}, on ${via}`, async () => {
      const server = await echo(type, host);
      try {
        const r = await probeUdp(
          { address: host, port: server.address().port, timeoutMs: 200, packets: 5 },
          { clock: clock() },
        );
        assert.equal(r.ok, true, r.error);
        assert.equal(r.sent, 5);
        assert.equal(r.received, 5);
        assert.equal(r.lossRatio, 0);
        assert.equal(r.rttsMs.length, 5);
        assert.ok(r.rttsMs.every((x) => x >= 0 && x <= 200));
        assert.ok(r.jitterMs !== undefined && r.jitterMs >= 0);
      } finally {
        server.close();
      }
    });
  }

  test(`udp probe counts dropped datagrams as loss, on ${via}`, async () => {
    const server = await echo("udp4", "127.0.0.1", (seq) => seq % 2 === 0);
    try {
      const r = await probeUdp(
        {
          address: "127.0.0.1",
          port: server.address().port,
          timeoutMs: 100,
          packets: 4,
        },
        { clock: clock() },
      );
      assert.equal(r.ok, true);
      assert.equal(r.received, 2);
      assert.equal(r.lossRatio, 0.5);
    } finally {
      server.close();
    }
  });

  test(`udp probe with no echo is a failure with loss 1, on ${via}`, async () => {
    const server = await echo("udp4", "127.0.0.1", () => true);
    try {
      const r = await probeUdp(
        {
          address: "127.0.0.1",
          port: server.address().port,
          timeoutMs: 50,
          packets: 3,
        },
        { clock: clock() },
      );
      assert.equal(r.ok, false);
      assert.equal(r.lossRatio, 1);
      assert.equal(r.jitterMs, undefined);
      assert.ok(r.error);
    } finally {
      server.close();
    }
  });

  for (const [type, host] of [
    ["udp4", "127.0.0.1"],
    ["udp6", "::1"],
  ] as const) {
    test(`udp probe to a closed port over ${host} names the ICMP port unreachable it got, on ${via}`, async () => {
      // A port that was just free: bind, read it, close. Another suite running beside this one may bind it in
      // between (an echo server there answers with our probe id): then take another free port.
      const freedPort = async (): Promise<number> => {
        const s = dgram.createSocket(type);
        await new Promise<void>((r) => s.bind(0, host, () => r()));
        const port = s.address().port;
        await new Promise<void>((r) => s.close(() => r()));
        return port;
      };
      let r = await probeUdp(
        { address: host, port: await freedPort(), timeoutMs: 100, packets: 2 },
        { clock: clock() },
      );
      for (let tries = 0; r.ok && tries < 5; tries++) {
        r = await probeUdp(
          { address: host, port: await freedPort(), timeoutMs: 100, packets: 2 },
          { clock: clock() },
        );
      }
      assert.equal(r.ok, false);
      assert.equal(r.lossRatio, 1);
      assert.match(r.error ?? "", new RegExp(`^port unreachable from ${host.replace(/\./g, "\\.")}$`));
    });
  }

  test(`udp probe ignores stray datagrams that are not its own, on ${via}`, async () => {
    // An "echo" that answers with garbage and with a foreign probe id: none of it may count.
    const s = dgram.createSocket("udp4");
    s.on("message", (msg, rinfo) => {
      s.send(Buffer.from("hello"), rinfo.port, rinfo.address);
      const foreign = Buffer.from(msg);
      foreign.writeUInt32BE((foreign.readUInt32BE(4) + 1) >>> 0, 4);
      s.send(foreign, rinfo.port, rinfo.address);
    });
    await new Promise<void>((r) => s.bind(0, "127.0.0.1", () => r()));
    try {
      const r = await probeUdp(
        { address: "127.0.0.1", port: s.address().port, timeoutMs: 80, packets: 2 },
        { clock: clock() },
      );
      assert.equal(r.received, 0);
      assert.equal(r.ok, false);
    } finally {
      s.close();
    }
  });

  test(`udp probe leaves no sockets or timers behind, on ${via}`, async () => {
    const server = await echo("udp4", "127.0.0.1");
    const settle = () => new Promise((r) => setTimeout(r, 20));
    const live = () => process.getActiveResourcesInfo().filter((x) => x === "UDPWrap" || x === "Timeout");
    await settle();
    const before = live();
    try {
      for (let i = 0; i < 5; i++) {
        await probeUdp(
          { address: "127.0.0.1", port: server.address().port, timeoutMs: 50, packets: 3 },
          { clock: clock() },
        );
      }
      await settle();
      const after = live();
      assert.deepEqual(after.sort(), before.sort());
    } finally {
      server.close();
    }
  });
}

test("jitter is the mean absolute difference of consecutive RTTs", () => {
  assert.equal(meanAbsDiff([1, 3, 2]), 1.5);
  assert.equal(meanAbsDiff([5]), undefined);
});

test("a shared prober runs concurrent probes over one socket per family and keeps their replies apart, on plain timers (socket watched)", async () => {
  const server4 = await echo("udp4", "127.0.0.1", (seq) => seq === 1);
  const server6 = await echo("udp6", "::1");
  const prober = createUdpProber({ clock: timerClock });
  const before = socketFds();
  try {
    const runs = [
      ...Array.from({ length: 20 }, () =>
        prober.probe({ address: "127.0.0.1", port: server4.address().port, timeoutMs: 150, packets: 3 }),
      ),
      ...Array.from({ length: 5 }, () =>
        prober.probe({ address: "::1", port: server6.address().port, timeoutMs: 150, packets: 3 }),
      ),
    ];
    // every run is in flight (a run opens its channel's socket when it starts): one IPv4 and one IPv6 socket
    assert.equal(socketFds() - before, 2, "sockets in flight");
    const results = await Promise.all(runs);
    for (const r of results.slice(0, 20)) {
      assert.equal(r.sent, 3);
      assert.equal(r.received, 2, "datagram 1 is dropped by the echo");
      assert.ok(Math.abs(r.lossRatio - 1 / 3) < 1e-9);
    }
    for (const r of results.slice(20)) assert.deepEqual([r.ok, r.received, r.lossRatio], [true, 3, 0]);
    assert.equal(socketFds(), before, "the sockets close when no run is in flight");
  } finally {
    prober.close();
    server4.close();
    server6.close();
  }
});

test("a shared prober runs concurrent probes over one socket per family and keeps their replies apart, on a batching clock (virtual time)", async () => {
  // replies are read per batch, so when the clock reaches a batch decides what a run has; an RTT is still the
  // kernel's (real) time, and a timeout of a second keeps a loaded machine's scheduling delays out of it
  const echo4 = await countingEcho("udp4", "127.0.0.1", (seq) => seq === 1);
  const echo6 = await countingEcho("udp6", "::1");
  const timers = new VirtualTimers();
  const prober = createUdpProber({ clock: new CoalescingClock({ timers }) });
  const before = socketFds();
  try {
    const runs = [
      ...Array.from({ length: 20 }, () =>
        prober.probe({ address: "127.0.0.1", port: echo4.port, timeoutMs: 1000, packets: 3 }),
      ),
      ...Array.from({ length: 5 }, () =>
        prober.probe({ address: "::1", port: echo6.port, timeoutMs: 1000, packets: 3 }),
      ),
    ];
    assert.equal(socketFds() - before, 2, "one IPv4 and one IPv6 socket serve all 25 runs in flight");
    const all = track(runs);
    await advance(timers, 5000, [echo4, echo6], all.done);
    assert.ok(all.done(), "every run finished within 5 s of virtual time");
    const results = await all.results;
    for (const r of results.slice(0, 20)) {
      assert.equal(r.sent, 3);
      assert.equal(r.received, 2, "datagram 1 is dropped by the echo");
      assert.ok(Math.abs(r.lossRatio - 1 / 3) < 1e-9);
    }
    for (const r of results.slice(20)) assert.deepEqual([r.ok, r.received, r.lossRatio], [true, 3, 0]);
    assert.equal(socketFds(), before, "the sockets close when no run is in flight");
  } finally {
    prober.close();
    echo4.socket.close();
    echo6.socket.close();
  }
});

test("closing a shared prober ends its runs in flight with what they have", async () => {
  const server = await echo("udp4", "127.0.0.1", () => true);
  const prober = createUdpProber();
  try {
    const run = prober.probe({
      address: "127.0.0.1",
      port: server.address().port,
      timeoutMs: 5000,
      packets: 2,
    });
    await new Promise((r) => setTimeout(r, 20));
    prober.close();
    const r = await run;
    assert.equal(r.ok, false);
    assert.equal(r.received, 0);
    assert.equal(r.lossRatio, 1);
  } finally {
    server.close();
  }
});

test("on a batching clock, the later datagrams of concurrent runs leave on the shared grid ticks (virtual time)", async () => {
  // judged by the send time each datagram carries (the clock's time when it left), not by when it arrived
  const echo = await countingEcho("udp4", "127.0.0.1");
  const timers = new VirtualTimers();
  const prober = createUdpProber({ clock: new CoalescingClock({ timers }) });
  try {
    const runs: Promise<UdpProbeResult>[] = [];
    for (let i = 0; i < 8; i++) {
      // a timeout of a second: an RTT is the kernel's real time, which virtual time does not shorten
      runs.push(prober.probe({ address: "127.0.0.1", port: echo.port, timeoutMs: 1000, packets: 5 }));
      await advance(timers, 13, [echo]); // starts spread over a tick
    }
    const all = track(runs);
    await advance(timers, 10_000, [echo], all.done);
    for (const r of await all.results) assert.equal(r.received, 5);
    const later = echo.datagrams.filter((d) => d.seq > 0);
    assert.equal(later.length, 32);
    assert.deepEqual(
      later.filter((d) => d.sentAt % BATCH_GRID_MS !== 0),
      [],
      `datagrams not sent on a ${BATCH_GRID_MS} ms tick`,
    );
    // the 8 runs, started over 91 ms, share their wake-ups: 32 later datagrams on 8 ticks (two runs' worth a round)
    assert.ok(new Set(later.map((d) => d.sentAt)).size <= 8);
  } finally {
    prober.close();
    echo.socket.close();
  }
});

test("with a timeout under one grid tick, a run still lasts about packets x timeout (virtual time)", async () => {
  // a silent peer: every datagram waits out its whole timeout, the longest a run can last
  const echo = await countingEcho("udp4", "127.0.0.1", () => true);
  const timers = new VirtualTimers();
  const t0 = timers.now();
  let took = -1;
  try {
    const run = probeUdp(
      { address: "127.0.0.1", port: echo.port, timeoutMs: 20, packets: 5 },
      { clock: new CoalescingClock({ timers }) },
    ).then((r) => {
      took = timers.now() - t0;
      return r;
    });
    await advance(timers, 2000, [echo], () => took >= 0);
    const r = await run;
    assert.equal(r.sent, 5);
    assert.equal(echo.received, 5);
    assert.equal(r.lossRatio, 1);
    // 4 gaps of 20 ms + the last timeout + a deadline's slack; on the grid it would take over 420 ms
    assert.ok(took >= 0 && took < 300, `run took ${took} ms`);
  } finally {
    echo.socket.close();
  }
});
