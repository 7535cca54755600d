/**
 * Webhook endpoint routes: create, list, edit (the secret kept unless replaced), delete; the secret never in a
 * response, the audit or the stored row (sealed with AES-GCM); bad input 400; `webhooks:manage` only; 503 without
 * the key (create, new secret, send test) or without a database; send test is one signed attempt to a real loopback
 * receiver, its outcome and the failure streak recorded; a bad key file fails start-up. And the alert dispatcher: a fired and a resolved
 * transition reach every enabled endpoint subscribed to them, signed, with every key of the alert family.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { WEBHOOK_EXAMPLE, type WebhookEndpoint } from "@svc/contract";
import { startConsole } from "../testing/harness.ts";
import { browser, createUser, type LocalEnvs, localEnvs, login, w } from "../testing/local-env.ts";
import { testDatabases } from "../testing/test-db.ts";
import { VirtualScheduler, waitAdvancing } from "../testing/virtual-scheduler.ts";
import { type Delivery, startWebhookReceiver, type WebhookReceiver } from "../testing/webhook-receiver.ts";
import { WebhookDispatcher } from "./dispatcher.ts";
import { WebhookEndpoints } from "./endpoints.ts";
import { SecretBox } from "./secret-box.ts";
import { WebhookSender } from "./sender.ts";
import { verifySignature } from "./sign.ts";

const SECRET = "a-long-signing-secret-0123456789";
let envs: LocalEnvs;
let receiver: WebhookReceiver;
let hookUrl = "";
let answers: number[] = [];
let received: Delivery[] = [];

before(async () => {
  envs = await localEnvs();
  receiver = await startWebhookReceiver();
  ({ received, answers } = receiver);
  hookUrl = receiver.url;
});
after(async () => {
  await receiver.close();
  await envs.close();
});

test("endpoints: CRUD, secret write-only and sealed, bad input, permissions, send test", async () => {
  const e = await envs.env("local");
  try {
    const a = e.admin;
    const created = await w(a, "POST", "/api/v1/webhooks", {
      ...WEBHOOK_EXAMPLE,
      url: hookUrl,
      secret: SECRET,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const ep = created.body as WebhookEndpoint;
    assert.deepEqual(ep.events, ["alert.fired", "alert.resolved"]);
    assert.equal(ep.lastOutcome, null);
    assert.equal(ep.failureStreak, 0);
    for (const bad of [
      { ...WEBHOOK_EXAMPLE, url: "ftp://x/" },
      { ...WEBHOOK_EXAMPLE, url: "http://user:pw@127.0.0.1/" },
      { ...WEBHOOK_EXAMPLE, events: ["alert.fired", "alert.fired"] },
      { ...WEBHOOK_EXAMPLE, events: ["run.done"] },
      { ...WEBHOOK_EXAMPLE, events: [] },
      { ...WEBHOOK_EXAMPLE, secret: "short" },
      { url: hookUrl, events: ["alert.fired"] },
    ])
      assert.equal((await w(a, "POST", "/api/v1/webhooks", bad)).status, 400, JSON.stringify(bad));

    // send test: one signed attempt, verified over the raw body before parsing
    received.length = 0;
    const t1 = await w(a, "POST", `/api/v1/webhooks/${ep.id}/test`);
    assert.equal(t1.status, 200, JSON.stringify(t1.body));
    assert.equal((t1.body as { ok: boolean }).ok, true);
    assert.equal(received.length, 1);
    const first = received[0];
    assert.ok(first && verifySignature(SECRET, first.body, first.signature));
    assert.equal((JSON.parse(first.body.toString()) as { event: string }).event, "webhook.test");
    answers.splice(0, answers.length, 500);
    const t2 = await w(a, "POST", `/api/v1/webhooks/${ep.id}/test`);
    assert.deepEqual(
      [(t2.body as { ok: boolean }).ok, (t2.body as { error: string }).error],
      [false, "failed: HTTP 500"],
    );
    assert.equal(received.length, 2, "a send test is one attempt");
    let list = (await a.request("GET", "/api/v1/webhooks")).body as { endpoints: WebhookEndpoint[] };
    assert.equal(list.endpoints[0]?.failureStreak, 1);
    assert.equal(list.endpoints[0]?.lastOutcome?.error, "failed: HTTP 500");

    // edit without a secret keeps it; with one replaces it
    const upd = await w(a, "PUT", `/api/v1/webhooks/${ep.id}`, { url: hookUrl, events: ["alert.fired"] });
    assert.equal(upd.status, 200, JSON.stringify(upd.body));
    await w(a, "POST", `/api/v1/webhooks/${ep.id}/test`);
    assert.ok(verifySignature(SECRET, received[2]?.body ?? Buffer.alloc(0), received[2]?.signature));
    list = (await a.request("GET", "/api/v1/webhooks")).body as { endpoints: WebhookEndpoint[] };
    assert.equal(list.endpoints[0]?.failureStreak, 0, "a success resets the streak");
    const other = "another-long-secret-9876543210";
    await w(a, "PUT", `/api/v1/webhooks/${ep.id}`, { url: hookUrl, events: ["alert.fired"], secret: other });
    await w(a, "POST", `/api/v1/webhooks/${ep.id}/test`);
    assert.ok(verifySignature(other, received[3]?.body ?? Buffer.alloc(0), received[3]?.signature));

    // the secret is nowhere: responses, audit, stored row
    const everything = JSON.stringify([
      (await a.request("GET", "/api/v1/webhooks")).body,
      await e.store.listAudit(1000),
      await e.db.query("SELECT * FROM webhook_endpoints"),
    ]);
    for (const s of [SECRET, other]) assert.ok(!everything.includes(s), "secret leaked");

    // permissions: only webhooks:manage (admin)
    for (const role of ["viewer", "operator", "alert-editor"]) {
      await createUser(e, `u-${role}`, role);
      const c = browser(e.server);
      assert.equal((await login(c, `u-${role}`, `u-${role}-password-long`)).status, 200);
      assert.equal((await c.request("GET", "/api/v1/webhooks")).status, 403, role);
      assert.equal((await w(c, "POST", "/api/v1/webhooks", WEBHOOK_EXAMPLE)).status, 403, role);
      assert.equal((await w(c, "POST", `/api/v1/webhooks/${ep.id}/test`)).status, 403, role);
    }
    assert.equal((await w(a, "POST", "/api/v1/webhooks/nope/test")).status, 404);
    assert.equal((await w(a, "DELETE", `/api/v1/webhooks/${ep.id}`)).status, 204);
    assert.equal((await w(a, "DELETE", `/api/v1/webhooks/${ep.id}`)).status, 404);
  } finally {
    await e.server.stop();
  }
});

test("503 without the key (create, new secret, send test) and without a database", async () => {
  const dbs = await testDatabases();
  try {
    const { db } = await dbs.fresh();
    const s = await startConsole("auth:\n  anonymous:\n    role: admin\ndatabase:\n  url: pglite:memory\n", {
      db,
    });
    try {
      await s.whenReady();
      const c = browser(s);
      assert.equal((await c.request("GET", "/api/v1/webhooks")).status, 200);
      const r = await c.request("POST", "/api/v1/webhooks", { body: WEBHOOK_EXAMPLE });
      assert.equal(r.status, 503, JSON.stringify(r.body));
      await db.query(
        `INSERT INTO webhook_endpoints (id, url, events, enabled, secret_sealed, created_at, updated_at)
         VALUES ('e1', 'http://127.0.0.1:9/', '["alert.fired"]', true, 'v1:AAAA', 1, 1)`,
      );
      assert.equal((await c.request("POST", "/api/v1/webhooks/e1/test")).status, 503);
      const put = { url: "http://127.0.0.1:9/", events: ["alert.fired"] };
      assert.equal(
        (await c.request("PUT", "/api/v1/webhooks/e1", { body: { ...put, secret: SECRET } })).status,
        503,
      );
      assert.equal((await c.request("PUT", "/api/v1/webhooks/e1", { body: put })).status, 200);
    } finally {
      await s.stop();
    }
  } finally {
    await dbs.close();
  }
  const none = await startConsole("auth:\n  anonymous:\n    role: admin\n");
  try {
    assert.equal((await browser(none).request("GET", "/api/v1/webhooks")).status, 503);
  } finally {
    await none.stop();
  }
});

test("dispatcher: fired and resolved reach subscribed enabled endpoints, signed, every alert key", async () => {
  const e = await envs.env("local");
  try {
    const clock = new VirtualScheduler(Date.UTC(2026, 0, 1));
    const box = SecretBox.fromBase64(randomBytes(32).toString("base64"));
    const endpoints = new WebhookEndpoints(e.db, clock.now.bind(clock), box);
    const actor = {
      subject: "local:1",
      subjectDisplay: "t",
      action: "POST /api/v1/webhooks",
      remoteAddr: "",
    };
    await endpoints.create(
      { url: hookUrl, events: ["alert.fired", "alert.resolved"], enabled: true, secret: SECRET },
      actor,
    );
    await endpoints.create(
      { url: `${hookUrl}/off`, events: ["alert.fired"], enabled: false, secret: SECRET },
      actor,
    );
    await endpoints.create(
      { url: `${hookUrl}/inc`, events: ["incident.created"], enabled: true, secret: SECRET },
      actor,
    );
    const sender = new WebhookSender({
      scheduler: clock,
      onAttempt: (t, o, final) => endpoints.recordOutcome(t.endpointId, o, final),
    });
    const dispatcher = new WebhookDispatcher(endpoints, sender, clock.now.bind(clock));
    received.length = 0;
    answers.splice(0, answers.length, 500, 204, 204);
    const labels = { alertname: "svc_udp_loss", svc_rule_id: "r1", source_node: "a" };
    await dispatcher.transitions([
      {
        event: "alert.fired",
        ruleId: "r1",
        labels,
        firedAt: "2025-12-31T23:55:00.000Z",
        at: "2026-01-01T00:00:00.000Z",
      },
    ]);
    await waitAdvancing(clock, () => received.length >= 2, "fired, retried once", { stepMs: 10_000 });
    assert.ok(
      received[0]?.body.equals(received[1]?.body ?? Buffer.alloc(0)),
      "the retry sends the same bytes",
    );
    assert.equal(received[0]?.signature, received[1]?.signature);
    for (const r of received) assert.ok(verifySignature(SECRET, r.body, r.signature));
    const fired = JSON.parse(received[0]?.body.toString() ?? "{}") as Record<string, unknown>;
    // the spec's keys, and the extension `suspects` (empty: this console has no metrics server to localize from)
    assert.deepEqual(Object.keys(fired).sort(), ["alert", "event", "sentAt", "suspects"]);
    assert.deepEqual(fired.suspects, []);
    assert.deepEqual(fired.alert, {
      ruleId: "r1",
      labels,
      firedAt: "2025-12-31T23:55:00.000Z",
      resolvedAt: null,
    });
    assert.equal(fired.event, "alert.fired");
    await dispatcher.transitions([
      {
        event: "alert.resolved",
        ruleId: "r1",
        labels,
        firedAt: "2025-12-31T23:55:00.000Z",
        at: "2026-01-01T00:05:00.000Z",
      },
    ]);
    await waitAdvancing(clock, () => received.length >= 3, "resolved", { stepMs: 1_000 });
    const resolved = JSON.parse(received[2]?.body.toString() ?? "{}") as {
      event: string;
      alert: { resolvedAt: string };
    };
    assert.equal(resolved.event, "alert.resolved");
    assert.equal(resolved.alert.resolvedAt, "2026-01-01T00:05:00.000Z");
    clock.advance(3_600_000);
    assert.equal(received.length, 3, "disabled and unsubscribed endpoints get nothing");
  } finally {
    await e.server.stop();
  }
});

test("a key file that is not base64 of 32 bytes fails start-up naming the key", async () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-webhook-key-"));
  try {
    const file = join(dir, "key");
    writeFileSync(file, "not-a-key");
    const dbs = await testDatabases();
    try {
      const { db } = await dbs.fresh();
      await assert.rejects(
        startConsole(`database:\n  url: pglite:memory\nwebhooks:\n  encryptionKeyFile: ${file}\n`, { db }),
        /webhooks\.encryptionKeyFile: must hold base64 of 32 bytes/,
      );
      await db.close();
    } finally {
      await dbs.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
