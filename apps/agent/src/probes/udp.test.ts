// A single udp probe run (probeUdp) on each clock, against echoes on loopback; the shared prober: udp-prober.test.ts.
import assert from "node:assert/strict";
import dgram from "node:dgram";
import { test } from "node:test";
import { CLOCKS, echo } from "./testdata/udp-echo.ts";
import { meanAbsDiff, probeUdp } from "./udp.ts";

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
