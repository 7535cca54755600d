// Entry of the bundled controller (apps/controller/dist/controller.mjs, built by `npm run build`): plain
// JavaScript, no TypeScript loader at run time (the container image and `npm ci --omit=dev` run this).
import { controllerCommand } from "./cli.ts";

process.exit(await controllerCommand(process.argv.slice(2)));
