// The shared udp prober (createUdpProber): one socket per family for every run, replies kept apart, one source
// port per peer, runs ended by close(), datagrams on the clock's batch grid. Single runs: udp.test.ts.
import assert from "node:assert/strict";
import dgram from "node:dgram";
import { test } from "node:test";
import { BATCH_GRID_MS, CoalescingClock, timerClock } from "../clock/probe-clock.ts";
import { VirtualTimers } from "../clock/testdata/virtual-timers.ts";
import { advance, countingEcho, echo, socketFds, track } from "./testdata/udp-echo.ts";
import { createUdpProber, probeUdp, type UdpProbeResult } from "./udp.ts";

test("a shared prober runs concurrent probes over one socket per family and keeps their replies apart, on plain timers (socket watched)", async () => {
  const server4 = await echo("udp4", "127.0.0.1", (seq) => seq === 1);
  const server6 = await echo("udp6", "::1");
  const prober = createUdpProber({ clock: timerClock });
  const before = socketFds();
  try {
    const runs = [
      ...Array.from({ length: 20 }, () =>
        prober.probe({ address: "127.0.0.1", port: server4.address().port, timeoutMs: 1500, packets: 3 }),
      ),
      ...Array.from({ length: 5 }, () =>
        prober.probe({ address: "::1", port: server6.address().port, timeoutMs: 1500, packets: 3 }),
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
    assert.equal(socketFds() - before, 2, "the sockets stay open between runs");
    prober.close();
    assert.equal(socketFds(), before, "close() closes them");
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
    assert.equal(socketFds() - before, 2, "the sockets stay open between runs");
  } finally {
    prober.close();
    echo4.socket.close();
    echo6.socket.close();
  }
});

test("a shared prober's rounds to a peer all leave from one source port (one conntrack flow per peer)", async () => {
  const ports: number[] = [];
  const server = dgram.createSocket("udp4");
  server.on("message", (msg, rinfo) => {
    ports.push(rinfo.port);
    server.send(msg, rinfo.port, rinfo.address);
  });
  await new Promise<void>((r) => server.bind(0, "127.0.0.1", () => r()));
  const other = await echo("udp4", "127.0.0.1");
  const prober = createUdpProber();
  try {
    const target = { address: "127.0.0.1", port: server.address().port, timeoutMs: 500, packets: 2 };
    for (let round = 0; round < 4; round++) {
      // between rounds no run is in flight (idle), and another peer's runs come and go
      assert.equal((await prober.probe(target)).received, 2);
      const o = { ...target, port: other.address().port };
      assert.equal((await prober.probe(o)).received, 2);
    }
    assert.equal(ports.length, 8);
    assert.deepEqual([...new Set(ports)], [ports[0]], `source ports seen: ${ports.join(", ")}`);
  } finally {
    prober.close();
    server.close();
    other.close();
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
