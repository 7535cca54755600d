import assert from "node:assert/strict";
import net from "node:net";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { hasSs, socketsOnPort } from "../../../test/helpers/tcp-states.ts";
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

test("a reset in answer to our FIN ends the probe like a FIN: connected, total, no error", async () => {
  const seen: string[] = [];
  const server = await listen("127.0.0.1", (s) => {
    s.resume();
    s.on("end", () => {
      seen.push("fin received");
      s.resetAndDestroy();
    });
  });
  try {
    const o = await probe("127.0.0.1", portOf(server));
    assert.equal(o.error, undefined);
    assert.ok(o.connectMs !== undefined);
    assert.ok(o.totalMs !== undefined && o.totalMs >= o.connectMs, `total ${o.totalMs}`);
    assert.deepEqual(seen, ["fin received"]);
  } finally {
    server.close();
  }
});

test("against a listener that resets on our FIN neither end keeps a TIME_WAIT socket", {
  skip: hasSs() ? false : "ss not installed",
}, async () => {
  const server = await listen("127.0.0.1", (s) => {
    s.resume();
    s.on("end", () => s.resetAndDestroy());
  });
  try {
    const port = portOf(server);
    for (let i = 0; i < 5; i++) assert.ok((await probe("127.0.0.1", port)).totalMs !== undefined);
    assert.deepEqual(await socketsOnPort(port, "time-wait"), []);
    // the control: a listener answering with a FIN leaves the closing side (the probe) in TIME_WAIT
    const graceful = await listen("127.0.0.1", (s) => {
      s.resume();
      s.on("end", () => s.end());
    });
    try {
      const gport = portOf(graceful);
      assert.ok((await probe("127.0.0.1", gport)).totalMs !== undefined);
      assert.equal((await socketsOnPort(gport, "time-wait")).length, 1, "the control saw no TIME_WAIT");
    } finally {
      graceful.close();
    }
  } finally {
    server.close();
  }
});

test("an abort resets the connection: no end is left closing (no FIN_WAIT orphan, no CLOSE_WAIT peer)", {
  skip: hasSs() ? false : "ss not installed",
}, async () => {
  const held: net.Socket[] = [];
  const server = await listen("127.0.0.1", (s) => {
    s.resume(); // half-open: never closes its side
    held.push(s);
  });
  try {
    const port = portOf(server);
    const h = startTcpProbe("127.0.0.1", port, () => {});
    await sleep(50);
    assert.equal((await socketsOnPort(port, "close-wait")).length, 1, "the peer saw our FIN");
    assert.ok(h.abort() !== undefined);
    await sleep(50);
    for (const state of ["time-wait", "fin-wait-1", "fin-wait-2", "close-wait"])
      assert.deepEqual(await socketsOnPort(port, state), [], state);
  } finally {
    for (const s of held) s.destroy();
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
