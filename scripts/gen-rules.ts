/**
 * Writes the console's recording rules (apps/console/src/fleet/recording-rules.ts) for operators: `npm run
 * gen:rules`. deploy/prometheus/svc-recording-rules.yml holds both groups (fleets with agents older than the pair
 * state); svc-recording-rules-state.yml leaves out the `now` group (every agent exports svc_agent_info and its
 * pair state). A test fails when a committed file drifts.
 */
import { writeFileSync } from "node:fs";
import { recordingRulesYaml } from "../apps/console/src/fleet/recording-rules.ts";

for (const [name, text] of [
  ["svc-recording-rules.yml", recordingRulesYaml()],
  ["svc-recording-rules-state.yml", recordingRulesYaml("svc", 5, 15, false)],
] as const) {
  writeFileSync(new URL(`../deploy/prometheus/${name}`, import.meta.url), text);
  console.log(`gen-rules: wrote deploy/prometheus/${name} (${text.length} bytes)`);
}
