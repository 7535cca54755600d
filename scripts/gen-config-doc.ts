// Writes docs/configuration.md from the config schema, then formats it with Biome (which aligns Markdown tables).
// Run: npx tsx scripts/gen-config-doc.ts
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { renderConfigDoc } from "../packages/core/src/config/doc.ts";

const target = fileURLToPath(new URL("../docs/configuration.md", import.meta.url));
writeFileSync(target, renderConfigDoc());
execFileSync("npx", ["biome", "format", "--write", target], { stdio: "ignore" });
console.log(`wrote ${target}`);
