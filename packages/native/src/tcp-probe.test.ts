import assert from "node:assert/strict";
import net from "node:net";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { startTcpProbe, type TcpProbeOutcome } from "./index.ts";

async function listen(host: string, onConnection: (s: net.Socket) => void): Promise<net.Server> {
  const server = net.createServer({ allowHalfOpen: true }, onConnection);
  await new Promise<void>((r) => server.listen(0, host, () => r()));
  return server;
}
const portOf = (s: net.Server): number => (s.address() as net.AddressInfo).port;
const probe = (address: string, port: number): Promise<TcpProbeOutcome> =>
  new Promise((resolve) => startTcpProbe(address, port, resolve));

for (const host of ["127.0.0.1", "::1"]) {
  test(`connects, sends FIN, and sees the peer's FIN over ${host}`, async () => {
    const ends: string[] = [];
    const server = await listen(host, (s) => {
      s.resume();
      s.on("end", () => {
        ends.push("fin received");
        s.end();
      });
    });
    try {
      const o = await probe(host, portOf(server));
      assert.equal(o.error, undefined);
      assert.ok(o.connectMs !== undefined && o.connectMs >= 0 && o.connectMs < 1000);
      assert.ok(o.totalMs !== undefined && o.totalMs >= o.connectMs);
      assert.deepEqual(ends, ["fin received"], "the probe closed its side first");
    } finally {
      server.close();
    }
  });
}

test("data the peer sends before its FIN is read and dropped", async () => {
  const server = await listen("127.0.0.1", (s) => {
    s.resume();
    s.on("end", () => s.end(Buffer.alloc(100_000, 1)));
  });
  try {
    const o = await probe("127.0.0.1", portOf(server));
    assert.equal(o.error, undefined);
    assert.ok(o.totalMs !== undefined);
  } finally {
    server.close();
  }
});

test("a refused connect reports ECONNREFUSED and no times", async () => {
  const server = await listen("127.0.0.1", () => {});
  const port = portOf(server);
  await new Promise((r) => server.close(r));
  const o = await probe("127.0.0.1", port);
  assert.equal(o.error?.code, "ECONNREFUSED");
  assert.equal(o.connectMs, undefined);
  assert.equal(o.totalMs, undefined);
});

test("a reset instead of a FIN: connected, no total, the errno named", async () => {
  const server = await listen("127.0.0.1", (s) => s.resetAndDestroy());
  try {
    const o = await probe("127.0.0.1", portOf(server));
    assert.ok(o.connectMs !== undefined);
    assert.equal(o.totalMs, undefined);
    assert.equal(o.error?.code, "ECONNRESET");
  } finally {
    server.close();
  }
});

test("abort while waiting for the peer's FIN returns the connect time and never calls back", async () => {
  const held: net.Socket[] = [];
  const server = await listen("127.0.0.1", (s) => {
    s.resume();
    held.push(s); // half-open: never closes its side
  });
  try {
    let called = false;
    const h = startTcpProbe("127.0.0.1", portOf(server), () => {
      called = true;
    });
    await sleep(50);
    const connectMs = h.abort();
    assert.ok(connectMs !== undefined && connectMs >= 0);
    assert.equal(h.abort(), undefined, "a second abort has nothing to report");
    await sleep(50);
    assert.equal(called, false);
  } finally {
    for (const s of held) s.destroy();
    server.close();
  }
});

test("bad input throws before any socket is made", () => {
  assert.throws(() => startTcpProbe("localhost", 80, () => {}), /not an IP literal/);
  assert.throws(() => startTcpProbe("127.0.0.1", 0, () => {}), /port must be 1-65535/);
  assert.throws(() => startTcpProbe("127.0.0.1", 70000, () => {}), /port must be 1-65535/);
});
