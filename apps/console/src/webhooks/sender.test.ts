/**
 * Signed delivery against a real HTTP receiver on loopback, retries in virtual time: a receiver answering 500, then
 * 302, then 200 gets three attempts with identical body and signature (verified over the raw bytes before
 * parsing), the 302 recorded as `failed: HTTP 302` and its Location never followed; delays about 30 s and 5 min
 * within +/-20 %; three failures end the delivery; a send test is one attempt; stop() drops waiting retries.
 * Also the AES-GCM secret box.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { VirtualScheduler, waitAdvancing } from "../testing/virtual-scheduler.ts";
import { SecretBox } from "./secret-box.ts";
import { type AttemptOutcome, WebhookSender } from "./sender.ts";
import { verifySignature } from "./sign.ts";

interface Hit {
  path: string;
  body: Buffer;
  signature: string | undefined;
  contentType: string | undefined;
  at: number;
}

let server: Server;
let base = "";
let answers: number[] = [];
const hits: Hit[] = [];
let clock: VirtualScheduler;
const planned: number[] = [];

before(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      hits.push({
        path: req.url ?? "",
        body: Buffer.concat(chunks),
        signature: req.headers["x-svc-signature"] as string | undefined,
        contentType: req.headers["content-type"],
        at: clock.now(),
      });
      const status = answers.shift() ?? 200;
      res.writeHead(status, status >= 300 && status < 400 ? { location: `${base}/elsewhere` } : {});
      res.end("x");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

function setup(random = 0.5) {
  clock = new VirtualScheduler(Date.UTC(2026, 0, 1));
  const c = clock;
  hits.length = 0;
  planned.length = 0;
  const outcomes: [AttemptOutcome, boolean][] = [];
  const sender = new WebhookSender({
    // the virtual clock, recording each planned retry's delay exactly
    scheduler: {
      now: () => c.now(),
      schedule(at, fn) {
        planned.push(at - c.now());
        return c.schedule(at, fn);
      },
    },
    random: () => random,
    onAttempt: (_t, o, final) => void outcomes.push([o, final]),
  });
  return { sender, outcomes };
}

const target = () => ({ endpointId: "e1", url: `${base}/hook`, secret: "s3cret-signing-key" });
const body = Buffer.from(
  '{"event":"alert.fired","alert":{"ruleId":"r1"},"sentAt":"2026-01-01T00:00:00.000Z"}',
);

test("500, 302, 200: three attempts, identical body and signature, 302 failed and not followed", async () => {
  const { sender, outcomes } = setup();
  answers = [500, 302, 200];
  const done = sender.deliver(target(), body);
  await waitAdvancing(clock, () => hits.length >= 3, "three attempts", { stepMs: 5_000 });
  const last = await done;
  assert.equal(last?.ok, true);
  assert.deepEqual(
    hits.map((h) => h.path),
    ["/hook", "/hook", "/hook"],
    "the redirect's Location is never requested",
  );
  for (const h of hits) {
    assert.ok(h.body.equals(body), "the exact bytes each time");
    assert.equal(h.signature, hits[0]?.signature);
    assert.equal(h.contentType, "application/json");
    assert.ok(verifySignature("s3cret-signing-key", h.body, h.signature), "HMAC over the raw body");
  }
  assert.equal(hits[0]?.signature?.startsWith("sha256="), true);
  assert.deepEqual(
    outcomes.map(([o, final]) => [o.attempt, o.status, o.error, final]),
    [
      [1, 500, "failed: HTTP 500", false],
      [2, 302, "failed: HTTP 302", false],
      [3, 200, null, true],
    ],
  );
  const t0 = hits[0]?.at ?? 0;
  const d1 = (hits[1]?.at ?? 0) - t0;
  const d2 = (hits[2]?.at ?? 0) - (hits[1]?.at ?? 0);
  // waitAdvancing moves in 5 s steps: an attempt runs at the first step at or after its planned time
  assert.ok(d1 >= 24_000 && d1 <= 36_000 + 10_000, `second attempt after ~30 s, got ${d1}`);
  assert.ok(d2 >= 240_000 && d2 <= 360_000 + 10_000, `third attempt after ~5 min, got ${d2}`);
});

test("jitter stays within +/-20 %; three failures end the delivery", async () => {
  for (const random of [0, 0.999999]) {
    const { sender, outcomes } = setup(random);
    answers = [503, 503, 503, 200];
    const done = sender.deliver(target(), body);
    await waitAdvancing(clock, () => outcomes.length >= 3, "three attempts", { stepMs: 60_000 });
    const last = await done;
    assert.equal(last?.ok, false);
    assert.equal(last?.error, "failed: HTTP 503");
    assert.equal(outcomes.at(-1)?.[1], true, "the third attempt is final");
    assert.deepEqual(planned, random === 0 ? [24_000, 240_000] : [36_000, 360_000], `random ${random}`);
    clock.advance(3_600_000);
    assert.equal(hits.length, 3, "no fourth attempt");
    answers = [];
  }
});

test("send test is one attempt; stop() drops waiting retries; unreachable is an outcome", async () => {
  const { sender } = setup();
  answers = [500];
  const once = await sender.sendOnce(target(), body);
  assert.deepEqual([once.ok, once.error], [false, "failed: HTTP 500"]);
  clock.advance(3_600_000);
  assert.equal(hits.length, 1);

  answers = [500];
  const pending = sender.deliver(target(), body);
  await waitAdvancing(clock, () => hits.length >= 2, "first attempt", { stepMs: 0 });
  sender.stop();
  clock.advance(3_600_000);
  assert.equal(await pending, undefined);
  assert.equal(hits.length, 2, "a restart loses remaining attempts");

  const { sender: s2 } = setup();
  const down = await s2.sendOnce({ ...target(), url: "http://127.0.0.1:9/" }, body);
  assert.equal(down.ok, false);
  assert.match(down.error ?? "", /^unreachable: /);
});

test("secret box: AES-GCM round trip bound to the endpoint; the key must be 32 bytes of base64", () => {
  const key = Buffer.alloc(32, 7).toString("base64");
  const box = SecretBox.fromBase64(key);
  const sealed = box.seal("top secret", "e1");
  assert.match(sealed, /^v1:/);
  assert.ok(!sealed.includes("top secret"));
  assert.equal(box.open(sealed, "e1"), "top secret");
  assert.notEqual(box.seal("top secret", "e1"), sealed, "a fresh nonce per seal");
  assert.throws(() => box.open(sealed, "e2"));
  assert.throws(() => SecretBox.fromBase64(Buffer.alloc(32, 8).toString("base64")).open(sealed, "e1"));
  assert.throws(() => SecretBox.fromBase64(Buffer.alloc(16).toString("base64")), /32 bytes/);
  assert.equal(SecretBox.fromFile(""), undefined);
});
