#!/usr/bin/env node
// The `svc` command. `svc agent` runs the plain-JavaScript agent bundle when it is current (small footprint on
// every node); everything else runs the TypeScript sources through tsx's loader, so no build step is needed.
const AGENT_ARGS = process.argv.slice(3);
if (process.argv[2] === "agent" && process.env.SVC_AGENT_FROM_SOURCE !== "1") {
  const { agentBundleFresh, AGENT_BUNDLE } = await import("../../../scripts/agent-bundle.mjs");
  if (agentBundleFresh()) {
    process.argv = [process.argv[0], AGENT_BUNDLE, ...AGENT_ARGS];
    await import(AGENT_BUNDLE);
  } else {
    await runFromSource();
  }
} else {
  await runFromSource();
}

async function runFromSource() {
  const { register } = await import("tsx/esm/api");
  register();
  const { main } = await import("../src/main.ts");
  process.exit(await main(process.argv.slice(2)));
}
