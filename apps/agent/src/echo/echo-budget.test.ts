import assert from "node:assert/strict";
import { createSocket, type Socket } from "node:dgram";
import { after, before, test } from "node:test";
import { EchoServer, type EchoStats, PER_IP_BUDGET } from "./echo-server.ts";

// The echo's reply budgets in virtual time (the limiters' clock stands still unless the test moves it), with real
// datagrams on loopback from many source ports.
let now = 0;
let server: EchoServer;

before(async () => {
  server = new EchoServer({ port: 0, bind4: "127.0.0.1", bind6: null, rateLimit: { now: () => now } });
  await server.start();
});
after(() => server.stop());

const handled = (s: EchoStats) => s.replied + Object.values(s.refused).reduce((a, n) => a + (n ?? 0), 0);

/** Waits (bounded) until the server has handled `n` datagrams in all. */
async function handledReaches(n: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (handled(server.stats()) < n) {
    if (Date.now() > deadline) throw new Error(`server handled ${handled(server.stats())} of ${n} datagrams`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function bound(address: string): Promise<Socket> {
  const s = createSocket("udp4");
  await new Promise<void>((resolve, reject) => {
    s.once("error", reject);
    s.bind(0, address, () => resolve());
  });
  return s;
}

/**
 * Sends `perPort` datagrams from each of `ports` sockets bound to `from`, 100 sockets at a time, waiting for the
 * server to handle every 100 datagrams (so no receive buffer overflows), and returns the server's counters moved
 * meanwhile and the replies the senders received.
 */
async function burst(from: string, ports: number, perPort: number) {
  const before = server.stats();
  const base = handled(before);
  let sent = 0;
  let received = 0;
  for (let done = 0; done < ports; done += 100) {
    const batch = await Promise.all(Array.from({ length: Math.min(100, ports - done) }, () => bound(from)));
    try {
      for (const s of batch) s.on("message", () => received++);
      for (let i = 0; i < perPort; i++) {
        for (const s of batch) {
          s.send("e", server.port, "127.0.0.1");
          if (++sent % 100 === 0) await handledReaches(base + sent);
        }
      }
      await handledReaches(base + sent);
      const replied = server.stats().replied - before.replied;
      const deadline = Date.now() + 5000;
      while (received < replied && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    } finally {
      for (const s of batch) s.close();
    }
  }
  const after = server.stats();
  const moved = (k: "rate-limited" | "ip-rate-limited") => (after.refused[k] ?? 0) - (before.refused[k] ?? 0);
  return {
    replied: after.replied - before.replied,
    ipLimited: moved("ip-rate-limited"),
    portLimited: moved("rate-limited"),
    received,
  };
}

test("one address rotating 2,000 source ports gets the per-address burst, not 2,000 replies", async () => {
  const r = await burst("127.0.0.1", 2000, 1);
  assert.deepEqual(r, {
    replied: PER_IP_BUDGET.burst,
    ipLimited: 2000 - 1024,
    portLimited: 0,
    received: 1024,
  });
});

test("another address has its own budget", async () => {
  const r = await burst("127.0.0.2", 1, 10);
  assert.deepEqual(r, { replied: 10, ipLimited: 0, portLimited: 0, received: 10 });
});

test("the per-address budget refills at 256/s of the injected clock", async () => {
  now += 1000;
  const r = await burst("127.0.0.1", 300, 1);
  assert.equal(r.replied, PER_IP_BUDGET.refillPerSecond);
  assert.equal(r.ipLimited, 300 - 256);
  now += 250;
  assert.equal((await burst("127.0.0.1", 100, 1)).replied, 64);
});

test("the per ip:port budget still applies first: one port gets 256 of 300", async () => {
  const r = await burst("127.0.0.3", 1, 300);
  assert.deepEqual(r, { replied: 256, ipLimited: 0, portLimited: 44, received: 256 });
});
