import assert from "node:assert/strict";
import { createSocket } from "node:dgram";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { type Datagram, RawSocket, type SocketError } from "./index.ts";

test("a socket opened with watch: false reads nothing on its own; drain() reads it with the arrival time", async () => {
  // the echo runs in this process: its replies leave when its turn of the event loop comes (late on a loaded
  // machine), so arrival is judged against when the echo sent, and the read comes 150 ms after that
  const echo = createSocket("udp4");
  const echoedAt: bigint[] = [];
  echo.on("message", (msg, rinfo) =>
    echo.send(msg, rinfo.port, rinfo.address, () => echoedAt.push(process.hrtime.bigint())),
  );
  await new Promise<void>((r) => echo.bind(0, "127.0.0.1", () => r()));
  const s = RawSocket.open({ family: 4, kind: "udp", watch: false, recvBufferBytes: 1 << 20 });
  try {
    const got: Datagram[] = [];
    s.onMessage((d) => got.push(d));
    s.send(Buffer.from("one"), "127.0.0.1", echo.address().port);
    s.send(Buffer.from("two"), "127.0.0.1", echo.address().port);
    while (echoedAt.length < 2) await sleep(5);
    await sleep(150);
    assert.equal(got.length, 0, "nothing is read while no one drains");
    const readAt = process.hrtime.bigint();
    assert.equal(s.drain(), 2);
    assert.deepEqual(
      got.map((d) => d.data.toString()),
      ["one", "two"],
    );
    const first = got[0];
    assert.ok(first);
    // the kernel's arrival time: right after the echo sent it, not at the read 150 ms later
    const afterEcho = Number(first.receivedAt - (echoedAt[0] ?? 0n)) / 1e6;
    assert.ok(afterEcho > -50 && afterEcho < 50, `arrival ${afterEcho} ms after the echo sent`);
    assert.ok(readAt - first.receivedAt > 100_000_000n, "received well before it was read");
    assert.equal(s.drain(), 0, "nothing left");
  } finally {
    s.close();
    echo.close();
  }
});

test("drain() also reads the error queue of an unwatched socket, and is 0 after close", async () => {
  const probe = createSocket("udp4");
  await new Promise<void>((r) => probe.bind(0, "127.0.0.1", () => r()));
  const port = probe.address().port;
  await new Promise<void>((r) => probe.close(() => r()));
  const s = RawSocket.open({ family: 4, kind: "udp", watch: false, recvErr: true });
  const errors: SocketError[] = [];
  s.onError((e) => errors.push(e));
  s.send(Buffer.from("x"), "127.0.0.1", port);
  await sleep(50);
  assert.equal(errors.length, 0);
  assert.equal(s.drain(), 1);
  assert.deepEqual([errors[0]?.origin, errors[0]?.type, errors[0]?.code], ["icmp", 3, 3]);
  s.close();
  assert.equal(s.drain(), 0);
});

test("an exception in a callback ends the drain and reaches its caller; the rest is read next time", async () => {
  const s = RawSocket.open({ family: 4, kind: "udp", watch: false, bind: { address: "127.0.0.1", port: 0 } });
  try {
    const seen: string[] = [];
    s.onMessage((d) => {
      seen.push(d.data.toString());
      if (seen.length === 1) throw new Error("boom");
    });
    s.send(Buffer.from("a"), "127.0.0.1", s.localPort());
    s.send(Buffer.from("b"), "127.0.0.1", s.localPort());
    await sleep(20);
    assert.throws(() => s.drain(), /boom/);
    assert.equal(s.drain(), 1);
    assert.deepEqual(seen, ["a", "b"]);
  } finally {
    s.close();
  }
});
