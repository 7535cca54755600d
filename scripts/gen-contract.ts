/**
 * Writes what is generated from the console contract: packages/contract/openapi.json and docs/console-api.md.
 * `npm run gen:contract`; packages/contract/src/generated-files.test.ts fails when the committed files drift.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { consoleApiDocument, consoleApiMarkdown } from "@svc/contract";

const root = new URL("..", import.meta.url);
const { version } = JSON.parse(readFileSync(new URL("package.json", root), "utf8")) as { version: string };
const files: [string, string][] = [
  ["packages/contract/openapi.json", `${JSON.stringify(consoleApiDocument(version), null, 2)}\n`],
  ["docs/console-api.md", consoleApiMarkdown(version)],
];
for (const [path, text] of files) {
  writeFileSync(new URL(path, root), text);
  console.log(`gen-contract: wrote ${path} (${text.length} bytes)`);
}
