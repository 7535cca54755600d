import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { HttpTarget } from "@svc/core";
import { probeHttp, probeHttpTarget } from "./http.ts";

const handler: http.RequestListener = (req, res) => {
  if (req.url === "/slow") return void setTimeout(() => res.end("late"), 500);
  if (req.url === "/missing") {
    res.statusCode = 404;
    return void res.end("nope");
  }
  if (req.url === "/redirect") {
    res.writeHead(302, { location: "/" });
    return void res.end();
  }
  res.end(`hello ${req.method}`);
};

let plain: http.Server;
let secure: https.Server;
let dir: string;
const url = (s: http.Server, path: string, scheme = "http", host = "127.0.0.1") =>
  `${scheme}://${host}:${(s.address() as AddressInfo).port}${path}`;
const target = (u: string, extra: Partial<HttpTarget> = {}): HttpTarget => ({
  url: u,
  method: "GET",
  expectStatus: 0,
  bodyPattern: "",
  insecureSkipVerify: false,
  ...extra,
});

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-http-probe-"));
  execFileSync(
    "openssl",
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost"].concat([
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
    ]),
    { stdio: "ignore" },
  );
  plain = http.createServer(handler);
  secure = https.createServer(
    { key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) },
    handler,
  );
  await new Promise<void>((r) => plain.listen(0, "127.0.0.1", () => r()));
  await new Promise<void>((r) => secure.listen(0, "127.0.0.1", () => r()));
});

after(() => {
  plain.closeAllConnections();
  plain.close();
  secure.closeAllConnections();
  secure.close();
  rmSync(dir, { recursive: true, force: true });
});

test("http probe measures the phases of a plain request", async () => {
  const r = await probeHttpTarget(
    target(url(plain, "/", "http", "localhost"), { bodyPattern: "^hello GET$" }),
    2000,
  );
  assert.equal(r.ok, true, r.error);
  assert.equal(r.statusCode, 200);
  assert.ok(r.dnsMs !== undefined, "a host name is looked up");
  assert.ok(r.connectMs !== undefined && r.connectMs >= (r.dnsMs ?? 0));
  assert.equal(r.tlsMs, undefined);
  assert.ok(r.ttfbMs !== undefined && r.ttfbMs >= r.connectMs);
  assert.ok(r.totalMs !== undefined && r.totalMs >= r.ttfbMs);
});

test("http probe checks status and body", async () => {
  const results = await probeHttp({
    targets: [
      target(url(plain, "/missing")),
      target(url(plain, "/missing"), { expectStatus: 404 }),
      target(url(plain, "/redirect")),
      target(url(plain, "/"), { bodyPattern: "goodbye" }),
      target(url(plain, "/"), { method: "post", bodyPattern: "POST" }),
    ],
    timeoutMs: 2000,
  });
  assert.deepEqual(
    results.map((r) => [r.ok, r.statusCode]),
    [
      [false, 404],
      [true, 404],
      [true, 302],
      [false, 200],
      [true, 200],
    ],
  );
  assert.match(results[0]?.error ?? "", /404/);
  assert.equal(results[4]?.method, "POST");
});

test("http probe times out and reports connection errors as data", async () => {
  const slow = await probeHttpTarget(target(url(plain, "/slow")), 100);
  assert.equal(slow.ok, false);
  assert.match(slow.error ?? "", /timeout/);
  const closed = http.createServer();
  await new Promise<void>((r) => closed.listen(0, "127.0.0.1", () => r()));
  const dead = url(closed, "/");
  await new Promise((r) => closed.close(r));
  const refused = await probeHttpTarget(target(dead), 1000);
  assert.equal(refused.ok, false);
  assert.equal(refused.statusCode, 0);
  assert.match(refused.error ?? "", /ECONNREFUSED/);
  const bad = await probeHttpTarget(target("not a url"), 1000);
  assert.equal(bad.ok, false);
});

test("https probe with a self-signed certificate honours insecureSkipVerify", async () => {
  const u = url(secure, "/", "https");
  const verified = await probeHttpTarget(target(u), 2000);
  assert.equal(verified.ok, false);
  assert.match(verified.error ?? "", /self.signed|SELF_SIGNED/i);
  const skipped = await probeHttpTarget(target(u, { insecureSkipVerify: true }), 2000);
  assert.equal(skipped.ok, true, skipped.error);
  assert.equal(skipped.dnsMs, undefined, "an IP literal needs no lookup");
  assert.ok(skipped.connectMs !== undefined && skipped.tlsMs !== undefined && skipped.ttfbMs !== undefined);
  assert.ok(skipped.tlsMs >= skipped.connectMs);
  assert.ok(skipped.ttfbMs >= skipped.tlsMs);
});
