import assert from "node:assert/strict";
import net from "node:net";
import { test } from "node:test";
import { CoalescingClock } from "../clock/probe-clock.ts";
import { createTcpProber, judgeTcp, probeTcp } from "./tcp.ts";

async function listen(host: string): Promise<net.Server> {
  const server = net.createServer((s) => s.resume());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => resolve());
  });
  return server;
}

function portOf(server: net.Server): number {
  const addr = server.address();
  assert.ok(addr && typeof addr === "object");
  return addr.port;
}

for (const host of ["127.0.0.1", "::1"]) {
  test(`tcp probe connects and closes over ${host}`, async () => {
    const server = await listen(host);
    try {
      const r = await probeTcp({ address: host, port: portOf(server), timeoutMs: 2000 });
      assert.equal(r.ok, true, r.error);
      assert.equal(r.error, undefined);
      assert.ok(r.connectMs !== undefined && r.connectMs >= 0);
      assert.ok(r.totalMs !== undefined && r.totalMs >= r.connectMs);
    } finally {
      server.close();
    }
  });
}

test("tcp probe to a closed port fails with the errno", async () => {
  const server = await listen("127.0.0.1");
  const port = portOf(server);
  await new Promise((r) => server.close(r));
  const r = await probeTcp({ address: "127.0.0.1", port, timeoutMs: 2000 });
  assert.equal(r.ok, false);
  assert.match(r.error ?? "", /ECONNREFUSED/);
  assert.equal(r.connectMs, undefined);
});

test("tcp probe reports connect but no total when the peer never closes", async () => {
  const sockets: net.Socket[] = [];
  const server = net.createServer({ allowHalfOpen: true }, (s) => {
    s.resume();
    sockets.push(s);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  try {
    const r = await probeTcp({ address: "127.0.0.1", port: portOf(server), timeoutMs: 200 });
    assert.equal(r.ok, true);
    assert.ok(r.connectMs !== undefined);
    assert.equal(r.totalMs, undefined);
  } finally {
    for (const s of sockets) s.destroy();
    server.close();
  }
});

test("a batch of tcp probes asked for in one clock batch all connect and close", async () => {
  const server = await listen("127.0.0.1");
  const prober = createTcpProber({ clock: new CoalescingClock() });
  try {
    const port = portOf(server);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => prober.probe({ address: "127.0.0.1", port, timeoutMs: 2000 })),
    );
    for (const r of results) {
      assert.equal(r.ok, true, r.error);
      assert.ok(r.connectMs !== undefined && r.totalMs !== undefined);
    }
    // and again after the batch
    assert.equal((await prober.probe({ address: "127.0.0.1", port, timeoutMs: 2000 })).ok, true);
  } finally {
    server.close();
  }
});

test("what happened after the timeout does not count, though the timeout itself may be acted on late", () => {
  const t = { address: "127.0.0.1", port: 1, timeoutMs: 100 };
  assert.deepEqual(judgeTcp(t, 40, 90), { ok: true, connectMs: 40, totalMs: 90 });
  assert.deepEqual(judgeTcp(t, 40, 130), { ok: true, connectMs: 40 });
  assert.deepEqual(judgeTcp(t, 120, 130), { ok: false, error: "timeout after 100ms" });
  assert.deepEqual(judgeTcp(t, undefined), { ok: false, error: "timeout after 100ms" });
});
