/**
 * The console relays the controller's CheckResult (POST /api/v1/fleet/check): the contract's schema and the
 * controller's type must stay the same shape. A drift fails `npm run check` (the constant below stops typing).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { FleetCheckResult } from "@svc/contract";
import type { CheckResult } from "@svc/protocol";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const same: Same<CheckResult, FleetCheckResult> = true;

test("the contract's CheckResult is the controller's CheckResult", () => {
  assert.equal(same, true);
});
