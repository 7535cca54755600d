// Writes deploy/grafana/*.json from deploy/grafana/dashboards.ts (never edit the JSON by hand).
// Run: npm run gen:dashboards
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dashboardJson, dashboards } from "../deploy/grafana/dashboards.ts";

for (const { file, dashboard } of dashboards()) {
  const target = fileURLToPath(new URL(`../deploy/grafana/${file}`, import.meta.url));
  writeFileSync(target, dashboardJson(dashboard));
  console.log(`wrote ${target}`);
}
