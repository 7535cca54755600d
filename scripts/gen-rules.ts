/**
 * Writes deploy/prometheus/svc-recording-rules.yml from the console's rule definitions
 * (apps/console/src/fleet/recording-rules.ts): `npm run gen:rules`. A test fails when the committed file drifts.
 */
import { writeFileSync } from "node:fs";
import { recordingRulesYaml } from "../apps/console/src/fleet/recording-rules.ts";

const path = new URL("../deploy/prometheus/svc-recording-rules.yml", import.meta.url);
const text = recordingRulesYaml();
writeFileSync(path, text);
console.log(`gen-rules: wrote deploy/prometheus/svc-recording-rules.yml (${text.length} bytes)`);
