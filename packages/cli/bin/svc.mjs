#!/usr/bin/env node
// The `svc` command. TypeScript sources run through tsx's loader, so no build step is needed after `npm ci`.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/main.ts");
const code = await main(process.argv.slice(2));
process.exit(code);
