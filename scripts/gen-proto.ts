/**
 * Regenerates packages/protocol/src/generated/ from packages/protocol/proto/svc.proto with buf + ts-proto (local
 * plugin, nothing downloaded). `npm run gen:proto`; packages/protocol/src/generated.test.ts fails on drift.
 */
import { GENERATED_DIR, generateProto } from "../packages/protocol/src/codegen.ts";

for (const f of generateProto()) console.log(`gen-proto: wrote ${GENERATED_DIR}/${f}`);
