import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createSocket, type Socket } from "node:dgram";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { RawSocket } from "@svc/native";
import { EchoServer } from "./echo-server.ts";

const isRoot = process.getuid?.() === 0;
const rootSkip = isRoot || process.env.CI === "true" ? false : "needs root (raw socket, netns)";

interface Reply {
  data: Buffer;
  address: string;
  port: number;
}

async function udpClient(type: "udp4" | "udp6", address: string, port = 0): Promise<Socket> {
  const s = createSocket({ type, ipv6Only: type === "udp6" });
  await new Promise<void>((resolve, reject) => {
    s.once("error", reject);
    s.bind(port, address, () => resolve());
  });
  return s;
}

function send(s: Socket, data: Buffer, port: number, address: string): Promise<void> {
  return new Promise((resolve, reject) => s.send(data, port, address, (e) => (e ? reject(e) : resolve())));
}

/**
 * Sends one datagram and waits for a reply; undefined when none comes within waitMs. A reply ends the wait at
 * once: the bound only matters when none comes, so it allows for a loaded machine's scheduling delays.
 */
async function roundTrip(s: Socket, data: Buffer, port: number, address: string, waitMs = 5000) {
  const got = new Promise<Reply | undefined>((resolve) => {
    const t = setTimeout(() => {
      s.off("message", on);
      resolve(undefined);
    }, waitMs);
    const on = (msg: Buffer, rinfo: { address: string; port: number }) => {
      clearTimeout(t);
      s.off("message", on);
      resolve({ data: msg, address: rinfo.address, port: rinfo.port });
    };
    s.on("message", on);
  });
  await send(s, data, port, address);
  return got;
}

let server: EchoServer;
const registered = new Set<string>();

before(async () => {
  server = new EchoServer({
    port: 0,
    isRegisteredEchoEndpoint: (address, port) => registered.has(`${address}:${port}`),
  });
  await server.start();
});
after(() => server.stop());

test("echoes the payload unchanged over IPv4 and IPv6 and replies from the address reached", async () => {
  const c = await udpClient("udp4", "127.0.0.1");
  const r = await roundTrip(c, Buffer.from("hello"), server.port, "127.0.0.3");
  assert.ok(r, "reply expected");
  assert.equal(r.data.toString(), "hello");
  assert.equal(r.address, "127.0.0.3");
  assert.equal(r.port, server.port);
  c.close();

  const c6 = await udpClient("udp6", "::1");
  const r6 = await roundTrip(c6, Buffer.from("six"), server.port, "::1");
  assert.equal(r6?.data.toString(), "six");
  assert.equal(r6?.address, "::1");
  c6.close();
});

test("echoes a 9000-byte payload in full", async () => {
  const c = await udpClient("udp4", "127.0.0.1");
  const payload = Buffer.alloc(9000, 0xab);
  payload.writeUInt32BE(0xdeadbeef, 8996);
  const r = await roundTrip(c, payload, server.port, "127.0.0.1");
  assert.ok(r);
  assert.equal(r.data.length, 9000);
  assert.ok(r.data.equals(payload));
  c.close();
});

/** Sends one UDP datagram to the echo on loopback with a forged source port (raw socket: nothing is bound there). */
function forge(sourcePort: number): void {
  const raw = RawSocket.open({ family: 4, kind: "raw", protocol: 17 });
  const udp = Buffer.alloc(9);
  udp.writeUInt16BE(sourcePort, 0);
  udp.writeUInt16BE(server.port, 2);
  udp.writeUInt16BE(udp.length, 4); // checksum 0: none, valid for IPv4
  udp[8] = 0x78;
  raw.send(udp, "127.0.0.1", 0);
  raw.close();
}

/** Waits (bounded) until the refusal counter `reason` reaches `n`. */
async function refusedReaches(
  reason: "privileged-source-port" | "own-echo-port" | "registered-echo-endpoint",
  n: number,
): Promise<void> {
  const deadline = Date.now() + 5000;
  while ((server.stats().refused[reason] ?? 0) < n && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10));
  }
}

test("refuses a source port below 1024 (forged, so no port is bound)", { skip: rootSkip }, async () => {
  const before = server.stats();
  forge(999);
  await refusedReaches("privileged-source-port", (before.refused["privileged-source-port"] ?? 0) + 1);
  const after = server.stats();
  assert.equal(after.refused["privileged-source-port"], (before.refused["privileged-source-port"] ?? 0) + 1);
  assert.equal(after.replied, before.replied);
});

test("refuses a registered agent's echo endpoint", async () => {
  const c = await udpClient("udp4", "127.0.0.1");
  const port = c.address().port;
  assert.ok(await roundTrip(c, Buffer.from("x"), server.port, "127.0.0.1"), "not registered yet: reply");
  registered.add(`127.0.0.1:${port}`);
  let replies = 0;
  c.on("message", () => replies++);
  await send(c, Buffer.from("x"), server.port, "127.0.0.1");
  // judged when the server has decided (it replies, if at all, in the same turn): then no reply came
  await refusedReaches("registered-echo-endpoint", 1);
  assert.equal(server.stats().refused["registered-echo-endpoint"], 1);
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
  assert.equal(replies, 0, "no reply to a registered echo endpoint");
  registered.delete(`127.0.0.1:${port}`);
  c.close();
});

test("refuses its own echo port via loopback (forged with a raw UDP socket)", {
  skip: rootSkip,
}, async () => {
  const beforeOwn = server.stats().refused["own-echo-port"] ?? 0;
  forge(server.port); // source port = the echo port
  await refusedReaches("own-echo-port", beforeOwn + 1);
  assert.equal(server.stats().refused["own-echo-port"], beforeOwn + 1);
});

test("rate limits per source ip:port: burst 256, then refill (the limiter's clock in virtual time)", async () => {
  // the buckets' clock stands still while the datagrams arrive, however long a loaded machine takes to read them
  let t = 0;
  const own = new EchoServer({ port: 0, rateLimit: { now: () => t } });
  await own.start();
  const c = await udpClient("udp4", "127.0.0.1");
  try {
    let replies = 0;
    c.on("message", () => replies++);
    const seen = () => {
      const s = own.stats();
      return { replied: s.replied, limited: s.refused["rate-limited"] ?? 0 };
    };
    /** Waits (bounded) for what the server and client have handled to reach `cond`. */
    const reaches = async (cond: () => boolean) => {
      const deadline = Date.now() + 10_000;
      while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    };
    for (let batch = 0; batch < 6; batch++) {
      for (let i = 0; i < 50; i++) c.send(Buffer.from("r"), own.port, "127.0.0.1");
      await new Promise((r) => setImmediate(r));
    }
    await reaches(() => seen().replied + seen().limited === 300);
    assert.deepEqual(
      seen(),
      { replied: 256, limited: 44 },
      "every datagram reached the server: a burst of 256",
    );
    await reaches(() => replies === 256);
    assert.equal(replies, 256);
    // 64 tokens/s: 200 ms later 12 more datagrams are admitted, the 13th is not
    t += 200;
    for (let i = 0; i < 13; i++) c.send(Buffer.from("r"), own.port, "127.0.0.1");
    await reaches(() => seen().replied + seen().limited === 313 && replies === seen().replied);
    assert.deepEqual(seen(), { replied: 268, limited: 45 });
    assert.equal(replies, 268);
  } finally {
    c.close();
    own.stop();
  }
});

test("refuses broadcast and multicast destinations (in a namespace)", { skip: rootSkip }, () => {
  const ns = `svcecho${process.pid}`;
  const ip = (...args: string[]) => execFileSync("ip", args, { stdio: "pipe" });
  ip("netns", "add", ns);
  try {
    ip("-n", ns, "link", "set", "lo", "up");
    ip("-n", ns, "link", "add", "v0", "type", "veth", "peer", "name", "v1");
    ip("-n", ns, "addr", "add", "198.18.77.1/24", "dev", "v0");
    ip("-n", ns, "addr", "add", "fd00:198:18::1/64", "dev", "v0", "nodad");
    ip("-n", ns, "link", "set", "v1", "up");
    ip("-n", ns, "link", "set", "v0", "up");
    ip("-n", ns, "route", "add", "default", "dev", "v0");
    const script = fileURLToPath(new URL("./testdata/ns-echo.ts", import.meta.url));
    const out = execFileSync("ip", ["netns", "exec", ns, process.execPath, "--import", "tsx", script], {
      cwd: fileURLToPath(new URL("../../../../", import.meta.url)),
      encoding: "utf8",
      timeout: 20_000,
    });
    const res = JSON.parse(out.trim().split("\n").pop() ?? "{}") as {
      stats: { replied: number; refused: Record<string, number> };
      replies: number;
    };
    assert.equal(res.stats.replied, 1, "the unicast control datagram is echoed");
    assert.equal(res.replies, 1);
    assert.equal(res.stats.refused.broadcast, 2, "255.255.255.255 and 198.18.77.255");
    assert.ok((res.stats.refused.multicast ?? 0) >= 2, "224.0.0.1 and ff02::1");
  } finally {
    ip("netns", "del", ns);
  }
});
