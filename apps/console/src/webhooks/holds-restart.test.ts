/**
 * Held alerts survive a restart (issue 22, "nothing a user stored is ever lost by a crash or restart"): a console on
 * a real database holds an alert.fired inside a maintenance window, is stopped, and a new console over the same
 * database delivers it at the window's close while the alert still fires (its original firedAt, signed), or drops
 * it when the alert stopped firing; a close that passed while the console was down waits for the new poller's
 * baseline. Virtual time on the alert scheduler; Prometheus's alert list is served by a loopback stub.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { PrometheusAlert } from "../alerts/poller.ts";
import { MaintenanceWindows } from "../maintenance/windows.ts";
import type { ConsoleServer } from "../server.ts";
import type { Db } from "../store/db.ts";
import { startConsole } from "../testing/harness.ts";
import { type TestDatabases, testDatabases } from "../testing/test-db.ts";
import { VirtualScheduler, waitAdvancing } from "../testing/virtual-scheduler.ts";
import { type Delivery, startWebhookReceiver, type WebhookReceiver } from "../testing/webhook-receiver.ts";
import { WebhookEndpoints } from "./endpoints.ts";
import { SecretBox } from "./secret-box.ts";
import { verifySignature } from "./sign.ts";

const T0 = Date.UTC(2026, 0, 1);
const SEC = 1000;
const MIN = 60 * SEC;
const SECRET = "a-long-signing-secret-0123456789";
const ACTOR = { subject: "local:t", subjectDisplay: "t", action: "test", remoteAddr: "127.0.0.1" };

let dbs: TestDatabases;
let dir: string;
let keyFile: string;
let hooks: WebhookReceiver;
let hookUrl = "";
let received: Delivery[] = [];
let prom: Server;
let promUrl = "";
let alerts: PrometheusAlert[] = [];
let polls = 0;

function listen(s: Server): Promise<string> {
  return new Promise((r) =>
    s.listen(0, "127.0.0.1", () => r(`http://127.0.0.1:${(s.address() as AddressInfo).port}`)),
  );
}

before(async () => {
  dbs = await testDatabases();
  dir = mkdtempSync(join(tmpdir(), "svc-holds-"));
  keyFile = join(dir, "key");
  writeFileSync(keyFile, randomBytes(32).toString("base64"));
  hooks = await startWebhookReceiver();
  hookUrl = hooks.url;
  received = hooks.received;
  prom = createServer((req, res) => {
    if (req.url !== "/api/v1/alerts") return void res.writeHead(404).end();
    polls++;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ status: "success", data: { alerts } }));
  });
  promUrl = await listen(prom);
});
after(async () => {
  await hooks.close();
  await new Promise((r) => prom.close(r));
  await dbs.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Waits (real time, bounded) for `cond`, letting the console's promises run; moves no clock. */
async function until(cond: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A console at virtual time `start` over `db`, polling the stub every 30 s. */
async function consoleAt(db: Db, start: number): Promise<{ server: ConsoleServer; clock: VirtualScheduler }> {
  const clock = new VirtualScheduler(start);
  const yaml = [
    "prometheus:",
    `  url: ${promUrl}`,
    "webhooks:",
    `  encryptionKeyFile: ${keyFile}`,
    "  alertPollInterval: 30s",
  ].join("\n");
  const server = await startConsole(yaml, {
    db,
    server: { now: () => clock.now(), alerts: { scheduler: clock }, webRoot: false },
  });
  await server.whenReady();
  return { server, clock };
}

/** Moves `clock` to `at` in poll-sized steps, each poll answered before the next step. */
async function advanceTo(clock: VirtualScheduler, at: number): Promise<void> {
  while (clock.now() < at) {
    const before = polls;
    const step = Math.min(30 * SEC, at - clock.now());
    clock.advance(step);
    const deadline = Date.now() + 2000;
    while (polls === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 5)); // the answer handed to the sink
  }
}

function firing(pair: [string, string], activeAt: number): PrometheusAlert {
  return {
    labels: { alertname: "svc_udp_loss", svc_rule_id: "r1", source_node: pair[0], destination_node: pair[1] },
    state: "firing",
    activeAt: new Date(activeAt).toISOString(),
  };
}

async function holdRows(db: Db): Promise<number> {
  return (await db.query("SELECT key_hash FROM maintenance_holds")).length;
}

/** A console that held `alert` inside a fleet window [T0, T0 + 10 min), stopped at `stopAt`. */
async function heldThenStopped(stopAt: number, alert: PrometheusAlert): Promise<string> {
  const { db, schema } = await dbs.fresh();
  alerts = [];
  const first = await consoleAt(db, T0);
  try {
    const box = SecretBox.fromFile(keyFile);
    await new WebhookEndpoints(db, () => T0, box).create(
      { url: hookUrl, events: ["alert.fired", "alert.resolved"], enabled: true, secret: SECRET },
      ACTOR,
    );
    await new MaintenanceWindows(db, () => T0).create(
      {
        scope: "fleet",
        node: "",
        source: "",
        destination: "",
        target: "",
        startAt: new Date(T0).toISOString(),
        endAt: new Date(T0 + 10 * MIN).toISOString(),
        reason: "upgrade",
      },
      ACTOR,
    );
    const p0 = polls;
    first.clock.advance(0);
    await until(() => polls > p0, "the baseline poll");
    alerts = [alert];
    await advanceTo(first.clock, T0 + MIN);
    await until(() => first.server.heldAlerts() === 1, "the fired edge held");
    await until(async () => (await holdRows(db)) === 1, "the hold stored");
    await advanceTo(first.clock, stopAt);
    assert.equal(received.length, 0, "nothing delivered inside the window");
  } finally {
    await first.server.stop();
  }
  return schema;
}

test("a hold stored before a restart is delivered at the window's close, with its original firedAt", async () => {
  received.length = 0;
  const firedAt = T0 + 20 * SEC;
  const schema = await heldThenStopped(T0 + 3 * MIN, firing(["node-1", "node-2"], firedAt));
  const db = await dbs.reopen(schema);
  const second = await consoleAt(db, T0 + 4 * MIN);
  try {
    await until(() => second.server.heldAlerts() === 1, "the hold restored");
    await advanceTo(second.clock, T0 + 10 * MIN - 1);
    await until(() => polls > 0, "polls answered");
    assert.equal(received.length, 0, "not before the close");
    await waitAdvancing(second.clock, () => received.length === 1, "the held alert delivered at the close", {
      stepMs: 30 * SEC,
      timeoutMs: 15_000,
    });
    assert.ok(second.clock.now() >= T0 + 10 * MIN, "at the close, not before");
    const got = received[0];
    assert.ok(got && verifySignature(SECRET, got.body, got.signature), "signed");
    const body = JSON.parse(got?.body.toString() ?? "{}") as {
      event: string;
      alert: { ruleId: string; firedAt: string; labels: Record<string, string> };
    };
    assert.equal(body.event, "alert.fired");
    assert.equal(body.alert.ruleId, "r1");
    assert.equal(body.alert.firedAt, new Date(firedAt).toISOString(), "the original firedAt");
    assert.equal(body.alert.labels.source_node, "node-1");
    await until(async () => (await holdRows(db)) === 0, "the delivered hold removed");
    assert.equal(second.server.heldAlerts(), 0);
  } finally {
    await second.server.stop();
  }
});

test("a restored hold of an alert that stopped firing is dropped at the close", async () => {
  received.length = 0;
  const schema = await heldThenStopped(T0 + 2 * MIN, firing(["node-2", "node-3"], T0 + 30 * SEC));
  alerts = [];
  const db = await dbs.reopen(schema);
  const second = await consoleAt(db, T0 + 5 * MIN);
  try {
    await until(() => second.server.heldAlerts() === 1, "the hold restored");
    await advanceTo(second.clock, T0 + 11 * MIN);
    await until(async () => (await holdRows(db)) === 0, "the dropped hold removed");
    assert.equal(received.length, 0, "an alert no longer firing is never delivered");
  } finally {
    await second.server.stop();
  }
});

test("a close that passed while the console was down is judged after the new poller's baseline", async () => {
  received.length = 0;
  const firedAt = T0 + 40 * SEC;
  const schema = await heldThenStopped(T0 + 2 * MIN, firing(["node-3", "node-1"], firedAt));
  const db = await dbs.reopen(schema);
  // the console comes back 20 minutes later: the window closed while it was down
  const p0 = polls;
  const second = await consoleAt(db, T0 + 30 * MIN);
  try {
    await until(() => second.server.heldAlerts() === 1, "the hold restored");
    assert.equal(polls, p0, "no poll yet: the clock has not moved");
    assert.equal(received.length, 0, "not delivered before the baseline says it still fires");
    second.clock.advance(0); // the first poll (baseline) and the overdue close
    await until(() => polls > p0, "the baseline poll");
    // asked again each poll interval until the baseline answered: delivered then
    await waitAdvancing(
      second.clock,
      () => received.length === 1,
      "delivered once the baseline saw it firing",
      {
        stepMs: 30 * SEC,
        timeoutMs: 15_000,
      },
    );
    const body = JSON.parse(received[0]?.body.toString() ?? "{}") as { alert: { firedAt: string } };
    assert.equal(body.alert.firedAt, new Date(firedAt).toISOString());
  } finally {
    await second.server.stop();
  }
});

test("a console restarted while an alert fires sends nothing on its first poll (baseline), then tells the resolve", async () => {
  const { db, schema } = await dbs.fresh();
  alerts = [];
  received.length = 0;
  const first = await consoleAt(db, T0);
  const alert = firing(["node-1", "node-2"], T0 + 10 * SEC);
  try {
    await new WebhookEndpoints(db, () => T0, SecretBox.fromFile(keyFile)).create(
      { url: hookUrl, events: ["alert.fired", "alert.resolved"], enabled: true, secret: SECRET },
      ACTOR,
    );
    const p0 = polls;
    first.clock.advance(0);
    await until(() => polls > p0, "the baseline poll");
    alerts = [alert];
    await advanceTo(first.clock, T0 + MIN);
    await until(() => received.length === 1, "alert.fired delivered");
  } finally {
    await first.server.stop();
  }
  const event = (i: number) => (JSON.parse(received[i]?.body.toString() ?? "{}") as { event?: string }).event;
  assert.equal(event(0), "alert.fired");
  const second = await consoleAt(await dbs.reopen(schema), T0 + 2 * MIN);
  try {
    const p1 = polls;
    second.clock.advance(0);
    await until(() => polls > p1, "the restarted console's first poll");
    await advanceTo(second.clock, T0 + 4 * MIN);
    assert.equal(received.length, 1, "the still-firing alert is the baseline: not fired again");
    alerts = [];
    await advanceTo(second.clock, T0 + 5 * MIN);
    await until(() => received.length === 2, "alert.resolved delivered");
    assert.equal(event(1), "alert.resolved");
    for (const r of received) assert.ok(verifySignature(SECRET, r.body, r.signature));
  } finally {
    await second.server.stop();
  }
});
