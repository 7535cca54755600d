// Entry of the bundled console (apps/console/dist/console.mjs, built by `npm run build`, with the web app in
// apps/console/dist/web): plain JavaScript, no TypeScript loader at run time.
import { consoleCommand } from "./cli.ts";

process.exit(await consoleCommand(process.argv.slice(2)));
