import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createSocket } from "node:dgram";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import {
  buildEchoRequest,
  type Datagram,
  icmpUnprivilegedAllowed,
  interfaceMtuFor,
  parseEchoReply,
  RawSocket,
  type SocketError,
} from "./index.ts";

const isRoot = process.getuid?.() === 0;
const rootSkip = isRoot || process.env.CI === "true" ? false : "needs root (raw sockets, network namespaces)";
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const nsScript = fileURLToPath(new URL("./testdata/ns-native.ts", import.meta.url));

function next<T>(register: (cb: (v: T) => void) => void, ms = 2000): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error("timed out waiting")), ms);
    register((v) => {
      clearTimeout(t);
      resolve(v);
    });
  });
}

function ip(...args: string[]): void {
  execFileSync("ip", args, { stdio: "pipe" });
}

function runInNs(ns: string, args: string[], wrap: string[] = []): Record<string, unknown> {
  const out = execFileSync(
    "ip",
    ["netns", "exec", ns, ...wrap, process.execPath, "--import", "tsx", nsScript, ...args],
    {
      cwd: repoRoot,
      encoding: "utf8",
      timeout: 20_000,
    },
  );
  return JSON.parse(out.trim().split("\n").pop() ?? "{}") as Record<string, unknown>;
}

test("ICMP echo to 127.0.0.1 and ::1 (ping socket, or raw when ping_group_range refuses us)", {
  skip: rootSkip,
}, async () => {
  for (const [family, address] of [
    [4, "127.0.0.1"],
    [6, "::1"],
  ] as const) {
    const s = RawSocket.open({ family, kind: "icmp", recvTtl: true });
    assert.equal(s.kind, icmpUnprivilegedAllowed(family) ? "icmp-dgram" : "icmp-raw");
    // a raw socket sees every echo reply on the host (other tests ping too): wait for ours
    const got = next<Datagram>((cb) =>
      s.onMessage((d) => {
        if (parseEchoReply(family, d.data)?.sequence === 77) cb(d);
      }),
    );
    s.send(buildEchoRequest(family, 0x5bc, 77, Buffer.from("payload")), address, 0);
    const d = await got;
    s.close();
    const reply = parseEchoReply(family, d.data);
    assert.equal(reply?.sequence, 77);
    assert.equal(reply?.payload.toString(), "payload");
    assert.equal(d.address, address);
    assert.equal(typeof d.ttl, "number");
    assert.ok(d.receivedAt > 0n);
  }
});

test("explicit raw ICMP sockets ping loopback with our identifier", { skip: rootSkip }, async () => {
  for (const [family, address] of [
    [4, "127.0.0.1"],
    [6, "::1"],
  ] as const) {
    const s = RawSocket.open({ family, kind: "icmp-raw" });
    assert.equal(s.kind, "icmp-raw");
    const got = next<Datagram>((cb) =>
      s.onMessage((d) => parseEchoReply(family, d.data)?.sequence === 9 && cb(d)),
    );
    s.send(buildEchoRequest(family, 0x4242, 9, Buffer.from("raw")), address, 0);
    const reply = parseEchoReply(family, (await got).data);
    s.close();
    assert.equal(reply?.identifier, 0x4242);
  }
});

test("per-send TTL and hop limit reach the receiver", async () => {
  for (const [family, address] of [
    [4, "127.0.0.1"],
    [6, "::1"],
  ] as const) {
    const rx = RawSocket.open({ family, kind: "udp", bind: { address, port: 0 }, recvTtl: true });
    const tx = RawSocket.open({ family, kind: "udp" });
    let got = next<Datagram>((cb) => rx.onMessage(cb));
    tx.send(Buffer.from("a"), address, rx.localPort(), { ttl: 7 });
    assert.equal((await got).ttl, 7);
    got = next<Datagram>((cb) => rx.onMessage(cb));
    tx.send(Buffer.from("b"), address, rx.localPort());
    assert.equal((await got).ttl, 64);
    rx.close();
    tx.close();
  }
});

test("lastSentAt is the send's time on process.hrtime's clock, before the datagram's receive time", async () => {
  const rx = RawSocket.open({ family: 4, kind: "udp", bind: { address: "127.0.0.1", port: 0 } });
  const tx = RawSocket.open({ family: 4, kind: "udp" });
  assert.equal(tx.lastSentAt(), 0n, "nothing sent yet");
  const got = next<Datagram>((cb) => rx.onMessage(cb));
  const before = process.hrtime.bigint();
  tx.send(Buffer.from("t"), "127.0.0.1", rx.localPort());
  const after = process.hrtime.bigint();
  const sent = tx.lastSentAt();
  assert.ok(sent > before && sent < after, `${before} < ${sent} < ${after}`);
  assert.ok((await got).receivedAt > sent, "received after it was sent");
  rx.close();
  tx.close();
});

test("PKTINFO reports the address reached, and replies can be sent from it", async () => {
  const server = RawSocket.open({
    family: 4,
    kind: "udp",
    bind: { address: "0.0.0.0", port: 0 },
    pktInfo: true,
  });
  const client = createSocket("udp4");
  await new Promise<void>((r) => client.bind(0, "127.0.0.1", r));
  const got = next<Datagram>((cb) => server.onMessage(cb));
  client.send("hi", server.localPort(), "127.0.0.2");
  const d = await got;
  assert.equal(d.localAddress, "127.0.0.2");
  assert.equal(d.address, "127.0.0.1");
  assert.equal(typeof d.ifindex, "number");
  const reply = next<{ address: string }>((cb) => client.once("message", (_m, rinfo) => cb(rinfo)));
  server.send(d.data, d.address, d.port, { sourceAddress: d.localAddress });
  assert.equal((await reply).address, "127.0.0.2");
  client.close();
  server.close();

  const s6 = RawSocket.open({
    family: 6,
    kind: "udp",
    bind: { address: "::", port: 0 },
    v6Only: true,
    pktInfo: true,
  });
  const got6 = next<Datagram>((cb) => s6.onMessage(cb));
  const c6 = RawSocket.open({ family: 6, kind: "udp" });
  c6.send(Buffer.from("x"), "::1", s6.localPort());
  assert.equal((await got6).localAddress, "::1");
  s6.close();
  c6.close();
});

/** A udp port on `address` that nothing listens on (bound, read, closed): a send there is answered port unreachable. */
function closedUdpPort(family: 4 | 6, address: string): number {
  const closed = RawSocket.open({ family, kind: "udp", bind: { address, port: 0 } });
  const port = closed.localPort();
  closed.close();
  return port;
}

test("RECVERR: a send to a closed port yields port unreachable with offender and destination", async () => {
  for (const [family, address, origin, type, code] of [
    [4, "127.0.0.1", "icmp", 3, 3],
    [6, "::1", "icmp6", 1, 4],
  ] as const) {
    const port = closedUdpPort(family, address);
    const s = RawSocket.open({ family, kind: "udp", recvErr: true });
    const got = next<SocketError>((cb) => s.onError(cb));
    s.send(Buffer.from("probe"), address, port);
    const e = await got.finally(() => s.close());
    assert.deepEqual(
      {
        origin: e.origin,
        type: e.type,
        code: e.code,
        address: e.address,
        port: e.port,
        offender: e.offender,
      },
      { origin, type, code, address, port, offender: address },
    );
    assert.equal(e.errno, 111); // ECONNREFUSED
    assert.equal(e.data.toString(), "probe");
  }
});

test("RECVERR: an ICMP error about one destination does not fail the next send to another (shared socket)", async () => {
  for (const [family, address] of [
    [4, "127.0.0.1"],
    [6, "::1"],
  ] as const) {
    const closedPort = closedUdpPort(family, address);
    const rx = RawSocket.open({ family, kind: "udp", bind: { address, port: 0 } });
    const got = next<{ data: Buffer }>((cb) => rx.onMessage(cb));
    const s = RawSocket.open({ family, kind: "udp", recvErr: true });
    try {
      // a peer that is down answers port unreachable; the kernel keeps it as the socket's pending error, and the
      // next sendmsg on the socket (to any destination) reported it instead of sending
      s.send(Buffer.from("to the closed port"), address, closedPort);
      s.send(Buffer.from("to a live peer"), address, rx.localPort());
      assert.equal((await got).data.toString(), "to a live peer");
    } finally {
      s.close();
      rx.close();
    }
  }
});

test("RECVERR: the socket keeps receiving after an ICMP error (the poll handle is restarted)", async () => {
  for (const [family, address] of [
    [4, "127.0.0.1"],
    [6, "::1"],
  ] as const) {
    const closedPort = closedUdpPort(family, address);
    const echo = createSocket(family === 4 ? "udp4" : "udp6");
    echo.on("message", (msg, rinfo) => echo.send(msg, rinfo.port, rinfo.address));
    await new Promise<void>((r) => echo.bind(0, address, r));
    const s = RawSocket.open({ family, kind: "udp", recvErr: true });
    try {
      for (let round = 0; round < 3; round++) {
        const err = next<SocketError>((cb) => s.onError(cb));
        s.send(Buffer.from("to-closed"), address, closedPort);
        assert.equal((await err).errno, 111);
        const reply = next<Datagram>((cb) => s.onMessage(cb));
        s.send(Buffer.from(`echo-${round}`), address, echo.address().port);
        assert.equal((await reply).data.toString(), `echo-${round}`, `round ${round}: reply after an error`);
      }
    } finally {
      s.close();
      echo.close();
    }
  }
});

test("local errors throw with an errno code; bad addresses throw TypeError", () => {
  const s = RawSocket.open({ family: 4, kind: "udp" });
  assert.throws(() => s.send(Buffer.alloc(70_000), "127.0.0.1", 9), { code: "EMSGSIZE" });
  assert.throws(() => s.send(Buffer.alloc(1), "::1", 9), TypeError);
  s.close();
  assert.throws(
    () => RawSocket.open({ family: 4, kind: "udp", bind: { address: "198.18.255.254", port: 0 } }),
    {
      code: "EADDRNOTAVAIL",
    },
  );
  assert.ok(interfaceMtuFor("127.0.0.1") >= 65535);
  assert.ok(interfaceMtuFor("::1") >= 65535);
});

test("unprivileged: ping sockets work without CAP_NET_RAW once ping_group_range admits us; raw does not", {
  skip: rootSkip,
}, () => {
  // ping_group_range is per network namespace: the test sets it in its own namespace, nothing to restore.
  const ns = `svcnat${process.pid}`;
  ip("netns", "add", ns);
  try {
    ip("-n", ns, "link", "set", "lo", "up");
    const root = runInNs(ns, ["unpriv", "127.0.0.1", "::1"]);
    assert.deepEqual(root, {
      allowed4: false,
      allowed6: false,
      ping4: { error: "EACCES" },
      ping6: { error: "EACCES" },
      raw4: "icmp-raw",
      raw6: "icmp-raw",
      fallback4: "icmp-raw",
      fallback6: "icmp-raw",
      forbidRaw4: "EACCES",
    });
    execFileSync("ip", ["netns", "exec", ns, "sysctl", "-qw", "net.ipv4.ping_group_range=0 2147483647"]);
    const unpriv = runInNs(
      ns,
      ["unpriv", "127.0.0.1", "::1"],
      ["capsh", "--drop=cap_net_raw", "--", "-c", 'exec "$0" "$@"'],
    );
    assert.deepEqual(unpriv, {
      allowed4: true,
      allowed6: true,
      ping4: { kind: "icmp-dgram", seq: 4242 },
      ping6: { kind: "icmp-dgram", seq: 4242 },
      raw4: "EPERM",
      raw6: "EPERM",
      fallback4: "icmp-dgram",
      fallback6: "icmp-dgram",
      forbidRaw4: "icmp-dgram",
    });
  } finally {
    ip("netns", "del", ns);
  }
});

test("path MTU and TTL errors through a router namespace (frag-needed / packet-too-big carry the MTU)", {
  skip: rootSkip,
}, () => {
  const id = process.pid;
  const [a, r, b] = [`svcnA${id}`, `svcnR${id}`, `svcnB${id}`];
  for (const ns of [a, r, b]) ip("netns", "add", ns);
  try {
    ip("-n", a, "link", "add", "ax", "type", "veth", "peer", "name", "rx", "netns", r);
    ip("-n", r, "link", "add", "ry", "type", "veth", "peer", "name", "bx", "netns", b);
    ip("-n", a, "addr", "add", "198.18.79.1/30", "dev", "ax");
    ip("-n", r, "addr", "add", "198.18.79.2/30", "dev", "rx");
    ip("-n", r, "addr", "add", "198.18.79.5/30", "dev", "ry");
    ip("-n", b, "addr", "add", "198.18.79.6/30", "dev", "bx");
    ip("-n", a, "addr", "add", "fd00:198:18::79:1/112", "dev", "ax", "nodad");
    ip("-n", r, "addr", "add", "fd00:198:18::79:2/112", "dev", "rx", "nodad");
    ip("-n", r, "addr", "add", "fd00:198:18::7a:1/112", "dev", "ry", "nodad");
    ip("-n", b, "addr", "add", "fd00:198:18::7a:2/112", "dev", "bx", "nodad");
    ip("-n", r, "link", "set", "dev", "ry", "mtu", "1280");
    ip("-n", b, "link", "set", "dev", "bx", "mtu", "1280");
    for (const [ns, dev] of [
      [a, "ax"],
      [a, "lo"],
      [r, "rx"],
      [r, "ry"],
      [b, "bx"],
      [b, "lo"],
    ] as const) {
      ip("-n", ns, "link", "set", "dev", dev, "up");
    }
    ip("-n", a, "route", "add", "default", "via", "198.18.79.2");
    ip("-n", b, "route", "add", "default", "via", "198.18.79.5");
    ip("-n", a, "-6", "route", "add", "default", "via", "fd00:198:18::79:2");
    ip("-n", b, "-6", "route", "add", "default", "via", "fd00:198:18::7a:1");
    execFileSync("ip", [
      "netns",
      "exec",
      r,
      "sysctl",
      "-qw",
      "net.ipv4.ip_forward=1",
      "net.ipv6.conf.all.forwarding=1",
    ]);
    const res = runInNs(a, ["path", "198.18.79.6", "fd00:198:18::7a:2"]);
    assert.deepEqual(res, {
      mtu4before: 1500,
      big4: { origin: "icmp", type: 3, code: 4, info: 1280, offender: "198.18.79.2", again: "EMSGSIZE" },
      mtu4after: 1280,
      ttl4: { origin: "icmp", type: 11, code: 0, info: 0, offender: "198.18.79.2", again: "sent" },
      big6: {
        origin: "icmp6",
        type: 2,
        code: 0,
        info: 1280,
        offender: "fd00:198:18::79:2",
        again: "EMSGSIZE",
      },
      ttl6: { origin: "icmp6", type: 3, code: 0, info: 0, offender: "fd00:198:18::79:2", again: "sent" },
    });
  } finally {
    for (const ns of [a, r, b]) ip("netns", "del", ns);
  }
});
