#!/usr/bin/env node
// The `svc` command. `svc agent`, `svc controller` and `svc console` run that binary's bundle
// (apps/<name>/dist/<name>.mjs, plain JavaScript built by `npm run build`) and say so on stderr; nothing else is
// consulted (no file times). Running a binary from its TypeScript sources is a developer switch: `--from-sources`
// or SVC_FROM_SOURCES=1 (tests set it, so they run the code they test). The other commands (lab, topology, check)
// always run the sources through tsx's loader, a dev dependency.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const BINARIES = ["agent", "controller", "console"];
const argv = process.argv.slice(2);
const fromSources = argv.includes("--from-sources") || process.env.SVC_FROM_SOURCES === "1";
const args = argv.filter((a) => a !== "--from-sources");
const cmd = args[0];

if (BINARIES.includes(cmd) && !fromSources) {
  const bundle = fileURLToPath(new URL(`../../${cmd}/dist/${cmd}.mjs`, import.meta.url));
  if (!existsSync(bundle)) {
    console.error(
      `svc: ${bundle} is not built: run "npm run build", or run the TypeScript sources with --from-sources ` +
        "(or SVC_FROM_SOURCES=1; needs the dev dependencies)",
    );
    process.exit(1);
  }
  console.error(`svc: running the ${cmd} bundle ${bundle}`);
  process.argv = [process.argv[0], bundle, ...args.slice(1)];
  await import(bundle);
} else {
  // a child started by the lab inherits the switch, so a lab run from sources runs every binary from sources
  if (fromSources) process.env.SVC_FROM_SOURCES = "1";
  let tsx;
  try {
    tsx = await import("tsx/esm/api");
  } catch {
    console.error(
      `svc: "svc ${cmd ?? ""}" runs from the TypeScript sources, which needs the dev dependencies (npm ci); ` +
        "a production install (npm ci --omit=dev) runs only the agent, controller and console bundles",
    );
    process.exit(1);
  }
  tsx.register();
  const { main } = await import("../src/main.ts");
  process.exit(await main(args));
}
