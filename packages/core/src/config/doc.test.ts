import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { leafValues } from "./diff.ts";
import { renderConfigDoc } from "./doc.ts";
import { defaultConfig } from "./load.ts";
import { KEY_DOCS } from "./meta.ts";

test("every schema key is documented, and nothing else", () => {
  const schemaKeys = [...leafValues(defaultConfig("h")).keys()].sort();
  assert.deepEqual(Object.keys(KEY_DOCS).sort(), schemaKeys);
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

test("docs/configuration.md is up to date (regenerate: npx tsx scripts/gen-config-doc.ts)", () => {
  const committed = readFileSync(new URL("../../../../docs/configuration.md", import.meta.url), "utf8");
  assert.equal(normalise(committed), normalise(renderConfigDoc()));
});

test("the reference lists defaults as written in YAML", () => {
  const doc = renderConfigDoc();
  assert.match(doc, /\| `checkers\.udp\.timeout` \| `250ms` \|/);
  assert.match(doc, /\| `controller\.agentTtl` \| `30s` \| at least 10s \| controller \|/);
  assert.match(doc, /\| `checkers\.dns\.hosts` \| `\["kubernetes\.default\.svc\.cluster\.local"\]` \|/);
  assert.match(doc, /\| `agent\.nodeName` \| the hostname \|/);
});
