// Writes docs/configuration-console.md from the console's config schema.
// Run: npm run gen:config-doc:console
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { renderConsoleConfigDoc } from "../apps/console/src/config/doc.ts";

const target = fileURLToPath(new URL("../docs/configuration-console.md", import.meta.url));
writeFileSync(target, renderConsoleConfigDoc());
console.log(`wrote ${target}`);
