/**
 * The committed files generated from the contract match it: editing a schema or a route declaration without
 * `npm run gen:contract` fails here, naming the file.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { consoleApiDocument, consoleApiMarkdown } from "./document.ts";

const root = new URL("../../../", import.meta.url);
const { version } = JSON.parse(readFileSync(new URL("package.json", root), "utf8")) as { version: string };

for (const [path, want] of [
  ["packages/contract/openapi.json", () => `${JSON.stringify(consoleApiDocument(version), null, 2)}\n`],
  ["docs/console-api.md", () => consoleApiMarkdown(version)],
] as const) {
  test(`${path} is what the contract generates (npm run gen:contract)`, () => {
    const committed = readFileSync(new URL(path, root), "utf8");
    assert.ok(
      committed === want(),
      `${path} drifted from the contract: run npm run gen:contract and commit it`,
    );
  });
}
