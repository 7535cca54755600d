import { after, before } from "node:test";
import type { PGlite } from "@electric-sql/pglite";
import { quoteIdent } from "./db.ts";
import { pgliteDb, startPglite } from "./pglite.ts";
import { type Backend, storeSuite } from "./store-suite.ts";
import { tokenSuite } from "./token-suite.ts";

// One PGlite instance for the whole file (it takes seconds and much memory); each test gets its own schema.
let instance: PGlite | undefined;
before(async () => {
  instance = await startPglite("memory");
});
after(async () => {
  await instance?.close();
});

function backend(): Backend {
  const pg = instance;
  if (!pg) throw new Error("PGlite not started");
  return {
    open: (schema) => pgliteDb(pg, { schema, ownsInstance: false }),
    drop: async (schema) => {
      await pg.exec(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE; SET search_path TO public`);
    },
  };
}

storeSuite("pglite", backend);
tokenSuite("pglite", backend);
