import assert from "node:assert/strict";
import dgram from "node:dgram";
import { test } from "node:test";
import { meanAbsDiff, probeUdp } from "./udp.ts";

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

for (const [type, host] of [
  ["udp4", "127.0.0.1"],
  ["udp6", "::1"],
] as const) {
  test(`udp probe measures every echoed datagram over ${host}`, async () => {
    const server = await echo(type, host);
    try {
      const r = await probeUdp({ address: host, port: server.address().port, timeoutMs: 200, packets: 5 });
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

test("udp probe counts dropped datagrams as loss", async () => {
  const server = await echo("udp4", "127.0.0.1", (seq) => seq % 2 === 0);
  try {
    const r = await probeUdp({
      address: "127.0.0.1",
      port: server.address().port,
      timeoutMs: 100,
      packets: 4,
    });
    assert.equal(r.ok, true);
    assert.equal(r.received, 2);
    assert.equal(r.lossRatio, 0.5);
  } finally {
    server.close();
  }
});

test("udp probe with no echo is a failure with loss 1", async () => {
  const server = await echo("udp4", "127.0.0.1", () => true);
  try {
    const r = await probeUdp({
      address: "127.0.0.1",
      port: server.address().port,
      timeoutMs: 50,
      packets: 3,
    });
    assert.equal(r.ok, false);
    assert.equal(r.lossRatio, 1);
    assert.equal(r.jitterMs, undefined);
    assert.ok(r.error);
  } finally {
    server.close();
  }
});

test("udp probe ignores stray datagrams that are not its own", async () => {
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
    const r = await probeUdp({ address: "127.0.0.1", port: s.address().port, timeoutMs: 80, packets: 2 });
    assert.equal(r.received, 0);
    assert.equal(r.ok, false);
  } finally {
    s.close();
  }
});

test("udp probe leaves no sockets or timers behind", async () => {
  const server = await echo("udp4", "127.0.0.1");
  const settle = () => new Promise((r) => setTimeout(r, 20));
  const live = () => process.getActiveResourcesInfo().filter((x) => x === "UDPWrap" || x === "Timeout");
  await settle();
  const before = live();
  try {
    for (let i = 0; i < 5; i++) {
      await probeUdp({ address: "127.0.0.1", port: server.address().port, timeoutMs: 50, packets: 3 });
    }
    await settle();
    const after = live();
    assert.deepEqual(after.sort(), before.sort());
  } finally {
    server.close();
  }
});

test("jitter is the mean absolute difference of consecutive RTTs", () => {
  assert.equal(meanAbsDiff([1, 3, 2]), 1.5);
  assert.equal(meanAbsDiff([5]), undefined);
});
