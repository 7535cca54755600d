import assert from "node:assert/strict";
import dgram from "node:dgram";
import { test } from "node:test";
import { BATCH_GRID_MS, CoalescingClock, type ProbeClock, timerClock } from "../clock/probe-clock.ts";
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

for (const [via, clock] of CLOCKS) {
  test(`a shared prober runs concurrent probes over one socket per family and keeps their replies apart, on ${via}`, async () => {
    const server4 = await echo("udp4", "127.0.0.1", (seq) => seq === 1);
    const server6 = await echo("udp6", "::1");
    const prober = createUdpProber({ clock: clock() });
    const udpSockets = () => process.getActiveResourcesInfo().filter((x) => x === "UDPWrap").length;
    await new Promise((r) => setTimeout(r, 20)); // sockets of earlier tests finish closing
    const before = udpSockets();
    try {
      const runs = [
        ...Array.from({ length: 20 }, () =>
          prober.probe({ address: "127.0.0.1", port: server4.address().port, timeoutMs: 150, packets: 3 }),
        ),
        ...Array.from({ length: 5 }, () =>
          prober.probe({ address: "::1", port: server6.address().port, timeoutMs: 150, packets: 3 }),
        ),
      ];
      await new Promise((r) => setTimeout(r, 30));
      // every run is in flight: one IPv4 and one IPv6 socket serve all 25 (sockets are unref'd, so count handles)
      const during = udpSockets() - before;
      const results = await Promise.all(runs);
      assert.ok(during <= 2, `sockets in flight: ${during}`);
      for (const r of results.slice(0, 20)) {
        assert.equal(r.sent, 3);
        assert.equal(r.received, 2, "datagram 1 is dropped by the echo");
        assert.ok(Math.abs(r.lossRatio - 1 / 3) < 1e-9);
      }
      for (const r of results.slice(20)) assert.deepEqual([r.ok, r.received, r.lossRatio], [true, 3, 0]);
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(udpSockets(), before, "the sockets close when no run is in flight");
    } finally {
      prober.close();
      server4.close();
      server6.close();
    }
  });
}

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

test("on a batching clock, the later datagrams of concurrent runs leave on the shared grid ticks", async () => {
  // the echo runs in this process, so its arrival times are on the same performance.now() clock
  const arrivals: { seq: number; at: number }[] = [];
  const s = dgram.createSocket("udp4");
  s.on("message", (msg, rinfo) => {
    if (msg.length >= 10) arrivals.push({ seq: msg.readUInt16BE(8), at: performance.now() });
    s.send(msg, rinfo.port, rinfo.address);
  });
  await new Promise<void>((r) => s.bind(0, "127.0.0.1", () => r()));
  const prober = createUdpProber({ clock: new CoalescingClock() });
  try {
    const runs: Promise<UdpProbeResult>[] = [];
    for (let i = 0; i < 8; i++) {
      runs.push(prober.probe({ address: "127.0.0.1", port: s.address().port, timeoutMs: 150, packets: 5 }));
      await new Promise((r) => setTimeout(r, 13)); // starts spread over a tick
    }
    for (const r of await Promise.all(runs)) assert.equal(r.received, 5);
    const later = arrivals.filter((a) => a.seq > 0);
    assert.equal(later.length, 32);
    // uniform arrivals would land within 35 ms of a tick (the clock may run up to 1 ms before it, and late on a
    // busy machine) 70 % of the time: all 32 by chance ~ 1e-5
    const fromTick = (t: number) => Math.min(t % BATCH_GRID_MS, BATCH_GRID_MS - (t % BATCH_GRID_MS));
    const offTick = later.filter((a) => fromTick(a.at) >= 35);
    assert.deepEqual(offTick, [], `arrivals not near a ${BATCH_GRID_MS} ms tick`);
  } finally {
    prober.close();
    s.close();
  }
});

test("with a timeout under one grid tick, a run still lasts about packets x timeout", async () => {
  const server = await echo("udp4", "127.0.0.1");
  try {
    const t0 = performance.now();
    const r = await probeUdp(
      { address: "127.0.0.1", port: server.address().port, timeoutMs: 20, packets: 5 },
      { clock: new CoalescingClock() },
    );
    const took = performance.now() - t0;
    assert.equal(r.received, 5);
    // 4 gaps of 20 ms + the last reply; on the grid it would take over 420 ms
    assert.ok(took < 300, `run took ${took.toFixed(0)} ms`);
  } finally {
    server.close();
  }
});
