/** Self-test of the test TCP proxy: pass, refuse and hang against an echo server, switched live. */
import assert from "node:assert/strict";
import { once } from "node:events";
import { connect, createServer, type Server, type Socket } from "node:net";
import { after, before, test } from "node:test";
import { TcpProxy } from "./tcp-proxy.ts";

let echo: Server;
let proxy: TcpProxy;

before(async () => {
  echo = createServer((s) => {
    s.on("error", () => {});
    s.pipe(s);
  });
  echo.listen(0, "127.0.0.1");
  await once(echo, "listening");
  const a = echo.address();
  proxy = await TcpProxy.start(typeof a === "object" && a ? a.port : 0);
});

after(async () => {
  await proxy.close();
  echo.close();
});

async function open(): Promise<Socket> {
  const s = connect(proxy.port, "127.0.0.1");
  s.on("error", () => {});
  await once(s, "connect");
  return s;
}

/** The echo of `text` within `ms`, or undefined. */
async function roundTrip(s: Socket, text: string, ms = 1000): Promise<string | undefined> {
  let got = "";
  const onData = (d: Buffer) => {
    got += d.toString();
  };
  s.on("data", onData);
  s.resume();
  s.write(text);
  const deadline = Date.now() + ms;
  while (got.length < text.length && Date.now() < deadline && !s.destroyed)
    await new Promise((r) => setTimeout(r, 10));
  s.off("data", onData);
  s.pause(); // keep what arrives later for the next read
  return got.length >= text.length ? got : undefined;
}

const closed = (s: Socket) =>
  s.destroyed ? Promise.resolve() : new Promise<void>((r) => s.once("close", () => r()));

test("pass forwards both ways", async () => {
  proxy.set("pass");
  const s = await open();
  assert.equal(await roundTrip(s, "hello"), "hello");
  s.destroy();
});

test("refuse closes open connections at once and resets new ones", async () => {
  proxy.set("pass");
  const s = await open();
  assert.equal(await roundTrip(s, "a"), "a");
  const t0 = Date.now();
  proxy.set("refuse");
  await closed(s);
  assert.ok(Date.now() - t0 < 1000);
  const fresh = connect(proxy.port, "127.0.0.1");
  fresh.on("error", () => {});
  const err = await new Promise<unknown>((resolve) => {
    fresh.once("error", resolve);
    fresh.once("close", () => resolve(undefined));
  });
  assert.ok(err === undefined || (err as { code?: string }).code === "ECONNRESET", String(err));
  assert.equal(await roundTrip(fresh, "x", 200), undefined);
});

test("hang holds new and open connections without answering; pass resumes both", async () => {
  proxy.set("pass");
  const s = await open();
  assert.equal(await roundTrip(s, "before"), "before");
  proxy.set("hang");
  assert.equal(await roundTrip(s, "during", 500), undefined);
  const held = await open(); // accepted
  assert.equal(await roundTrip(held, "held", 500), undefined);
  assert.ok(!s.destroyed && !held.destroyed);
  proxy.set("pass");
  // the open connection resumes; what it sent while hung arrives now
  assert.equal(await roundTrip(s, "after"), "duringafter");
  // the connection accepted while hanging is connected now, what it sent is delivered
  assert.equal(await roundTrip(held, "!"), "held!");
  const again = await open();
  assert.equal(await roundTrip(again, "new"), "new");
  for (const x of [s, held, again]) x.destroy();
});
