/**
 * A signing secret never reaches a log line (issue 22: "secrets never appear in any response, log or export"): a
 * console logging at every level; send tests answered 500, then 204, then to a receiver that is gone; an edit refused
 * with the secret in its body; the list, the configuration export and the audit. The secret appears in no log line
 * and no response, while the deliveries that reached the receiver verify with it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { WEBHOOK_EXAMPLE, type WebhookEndpoint } from "@svc/contract";
import type { ConsoleLogger } from "../log.ts";
import { localEnvs, w } from "../testing/local-env.ts";
import { startWebhookReceiver } from "../testing/webhook-receiver.ts";
import { verifySignature } from "./sign.ts";

const SECRET = "secret-never-logged-0123456789abcdef";

test("the signing secret is in no log line, response or export", async () => {
  const lines: string[] = [];
  const capture = (level: string) => (obj: object, msg?: string) => {
    lines.push(
      `${level} ${msg ?? ""} ${JSON.stringify(obj, (_k, v) => (v instanceof Error ? { message: v.message, stack: v.stack } : v))}`,
    );
  };
  const logger: ConsoleLogger = {
    debug: capture("debug"),
    info: capture("info"),
    warn: capture("warn"),
    error: capture("error"),
  };
  const receiver = await startWebhookReceiver([500, 204]);
  const { url, received } = receiver;
  const envs = await localEnvs();
  try {
    const e = await envs.env("local", "", { logger });
    try {
      const a = e.admin;
      const created = await w(a, "POST", "/api/v1/webhooks", { ...WEBHOOK_EXAMPLE, url, secret: SECRET });
      assert.equal(created.status, 201);
      const ep = created.body as WebhookEndpoint;
      const responses: unknown[] = [created.body];
      responses.push((await w(a, "POST", `/api/v1/webhooks/${ep.id}/test`)).body); // 500: failed
      responses.push((await w(a, "POST", `/api/v1/webhooks/${ep.id}/test`)).body); // 204: ok
      // a refused edit (a bad url with the secret in the same body)
      const bad = await w(a, "PUT", `/api/v1/webhooks/${ep.id}`, {
        url: "ftp://x/",
        events: ["alert.fired"],
        secret: SECRET,
      });
      assert.equal(bad.status, 400);
      responses.push(bad.body);
      // the receiver goes away: the next send test fails to connect
      await receiver.close();
      responses.push((await w(a, "POST", `/api/v1/webhooks/${ep.id}/test`)).body);
      responses.push((await a.request("GET", "/api/v1/webhooks")).body);
      responses.push((await a.request("GET", "/api/v1/export")).body);
      responses.push((await a.request("GET", "/api/v1/audit")).body);
      assert.equal(received.length, 2);
      for (const r of received) assert.ok(verifySignature(SECRET, r.body, r.signature));
      assert.ok(lines.length > 0, "the console logged something");
      const leaks = lines.filter((l) => l.includes(SECRET));
      assert.deepEqual(leaks, [], "no log line holds the secret");
      assert.ok(!JSON.stringify(responses).includes(SECRET), "no response holds the secret");
    } finally {
      await e.server.stop();
    }
  } finally {
    await receiver.close();
    await envs.close();
  }
});
