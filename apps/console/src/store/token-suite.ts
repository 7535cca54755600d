/**
 * Test helper (not a test file): API-token and session-update store behaviour, run on PostgreSQL and PGlite by
 * the store test files next to it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { migrate } from "./migrations.ts";
import { SqlStore } from "./sql-store.ts";
import type { TokenRecord } from "./store.ts";
import { type Backend, schemaName } from "./store-suite.ts";

const token = (id: string, over: Partial<TokenRecord> = {}): TokenRecord => ({
  id,
  name: id,
  owner: "local:u",
  mintedBy: "local:u",
  secretHash: `hash-${id}`,
  createdAt: 10,
  lastUsedAt: null,
  expiresAt: null,
  revokedAt: null,
  ...over,
});

/** Registers the token tests under `label`. */
export function tokenSuite(label: string, getBackend: () => Backend): void {
  test(`${label}: tokens list newest first, revoke once, delete only revoked or expired, last use`, async () => {
    const backend = getBackend();
    const schema = schemaName();
    const db = await backend.open(schema);
    try {
      await migrate(db);
      const store = new SqlStore(db);
      await store.createToken(token("a", { createdAt: 1 }));
      await store.createToken(token("b", { createdAt: 2, expiresAt: 100 }));
      await store.createToken(token("c", { createdAt: 3 }));
      assert.deepEqual(
        (await store.listTokens()).map((t) => t.id),
        ["c", "b", "a"],
      );
      assert.equal(await store.revokeToken("a", 50), true);
      assert.equal(await store.revokeToken("a", 60), false, "already revoked");
      assert.equal((await store.getToken("a"))?.revokedAt, 50);
      assert.equal(await store.deleteSpentToken("c", 1000), false, "active");
      assert.equal(await store.deleteSpentToken("b", 99), false, "not yet expired");
      assert.equal(await store.deleteSpentToken("b", 100), true, "expired = spent");
      assert.equal(await store.deleteSpentToken("a", 0), true, "revoked");
      assert.equal(await store.getToken("a"), undefined);
      await store.markTokenUsed("c", 500);
      await store.markTokenUsed("c", 400);
      assert.equal((await store.getToken("c"))?.lastUsedAt, 500, "never moves back");

      await store.createSession({
        idHash: "s",
        subject: "oidc:x",
        display: "x",
        groups: ["a"],
        csrf: "k",
        createdAt: 1,
        lastSeenAt: 1,
        expiresAt: 10_000,
        data: {},
      });
      await store.updateSession("s", ["b", "c"], { oidc: { refreshToken: "r" } });
      const s = await store.getSession("s");
      assert.deepEqual(s?.groups, ["b", "c"]);
      assert.deepEqual(s?.data, { oidc: { refreshToken: "r" } });
    } finally {
      await db.close();
      await backend.drop(schema);
    }
  });
}
