import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiError } from "../../api/client.tsx";
import { isNoKey, outcomeText } from "./webhook-form.ts";

test("the no-key 503 is told apart from other failures", () => {
  assert.ok(
    isNoKey(new ApiError(503, "unavailable", "webhook signing secrets need webhooks.encryptionKeyFile")),
  );
  assert.ok(!isNoKey(new ApiError(503, "unavailable", "console store unavailable")));
  assert.ok(!isNoKey(new ApiError(400, "invalid_input", "webhooks.encryptionKeyFile")));
  assert.ok(!isNoKey(new Error("webhooks.encryptionKeyFile")));
});

test("outcomes in words: never sent, ok with its status, the failure with its attempt", () => {
  assert.equal(outcomeText(null), "never sent");
  const at = "2026-01-01T00:00:00.000Z";
  assert.match(outcomeText({ ok: true, at, attempt: 1, status: 204, error: null }), /^ok \(HTTP 204\) at /);
  assert.match(
    outcomeText({ ok: false, at, attempt: 3, status: 302, error: "failed: HTTP 302" }),
    /^failed: HTTP 302 at .* \(attempt 3\)$/,
  );
});
