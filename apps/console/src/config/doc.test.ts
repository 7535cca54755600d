import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { CONSOLE_KEY_DOCS, consoleLeaves, renderConsoleConfigDoc } from "./doc.ts";
import { parseConsoleConfig } from "./load.ts";

test("every console configuration key is documented, and nothing else", () => {
  const keys = [...consoleLeaves(parseConsoleConfig("", {}).config).keys()].sort();
  assert.deepEqual(Object.keys(CONSOLE_KEY_DOCS).sort(), keys);
});

/** Drops table padding so the check survives Biome's Markdown table alignment. */
function normalise(md: string): string {
  return md
    .split("\n")
    .map((line) =>
      line.startsWith("|")
        ? line
            .split(/(?<!\\)\|/)
            .map((c) => (/^\s*-+\s*$/.test(c) ? "---" : c.trim()))
            .join("|")
        : line.trimEnd(),
    )
    .join("\n")
    .trim();
}

test("docs/configuration-console.md is up to date (regenerate: npm run gen:config-doc:console)", () => {
  const committed = readFileSync(
    new URL("../../../../docs/configuration-console.md", import.meta.url),
    "utf8",
  );
  assert.equal(normalise(committed), normalise(renderConsoleConfigDoc()));
});
