import assert from "node:assert/strict";
import { test } from "node:test";
import { RawSocket } from "@svc/native";
import { EchoServer } from "../echo/echo-server.ts";
import { egressMtu } from "./egress-mtu.ts";
import { PMTU_OVERHEAD, probePmtu } from "./pmtu.ts";

/** A lossy "path": echoes only datagrams whose IP packet is at most maxPacket bytes (the rest vanish). */
function truncatingEcho(family: 4 | 6, maxPacket: number): RawSocket {
  const address = family === 4 ? "127.0.0.1" : "::1";
  const s = RawSocket.open({ family, kind: "udp", bind: { address, port: 0 } });
  s.onMessage((d) => {
    if (d.data.length + PMTU_OVERHEAD[family] <= maxPacket) s.send(d.data, d.address, d.port);
  });
  return s;
}

test("the egress MTU of loopback is the lo interface MTU", async () => {
  assert.equal(await egressMtu("127.0.0.1"), 65536);
  assert.equal(await egressMtu("::1"), 65536);
});

test("pmtu to the agent's echo server over loopback reads ok at full size (IPv4 and IPv6)", async () => {
  const echo = new EchoServer({ port: 0, bind4: "127.0.0.1", bind6: "::1" });
  await echo.start();
  try {
    for (const address of ["127.0.0.1", "::1"]) {
      // size 0: the lo MTU (65536) capped at the largest IP packet
      assert.deepEqual(await probePmtu({ address, port: echo.port, timeoutMs: 500, size: 0 }), {
        reading: "ok",
        ok: true,
        probeBytes: 65535,
        pmtuBytes: 65535,
      });
      assert.deepEqual(await probePmtu({ address, port: echo.port, timeoutMs: 500, size: 1400 }), {
        reading: "ok",
        ok: true,
        probeBytes: 1400,
        pmtuBytes: 1400,
      });
    }
  } finally {
    echo.stop();
  }
});

test("full size vanishing while the small datagram crosses reads blackhole at the largest size that crosses", async () => {
  for (const family of [4, 6] as const) {
    const path = truncatingEcho(family, 1300);
    const address = family === 4 ? "127.0.0.1" : "::1";
    const r = await probePmtu({ address, port: path.localPort(), timeoutMs: 200, size: 1500 });
    path.close();
    assert.equal(r.reading, "blackhole");
    assert.equal(r.ok, false);
    assert.equal(r.probeBytes, 1500);
    assert.equal(r.pmtuBytes, 1300, "found by the search: the echo's limit");
    assert.match(r.error ?? "", /1500-byte datagram vanished/);
  }
});

test("nothing crossing (closed port) is a plain failure, never a black hole", async () => {
  const s = RawSocket.open({ family: 4, kind: "udp", bind: { address: "127.0.0.1", port: 0 } });
  const port = s.localPort();
  s.close();
  const r = await probePmtu({ address: "127.0.0.1", port, timeoutMs: 300, size: 1500 });
  assert.equal(r.reading, "failed");
  assert.equal(r.ok, false);
  assert.equal(r.pmtuBytes, undefined);
  assert.match(r.error ?? "", /ECONNREFUSED/);
  const bad = await probePmtu({ address: "not-an-ip", port, timeoutMs: 300, size: 1500 });
  assert.equal(bad.reading, "failed");
});
