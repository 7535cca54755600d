// The three binaries' bundles: where each is built from and to, and what each carries beside it. Plain
// JavaScript with no dependencies: scripts/build.mjs builds from it and tests read it.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * @typedef {object} Bundle
 * @property {"agent" | "controller" | "console"} name
 * @property {string} entry  TypeScript entry (apps/<name>/src/bin.ts)
 * @property {string} dir    bundle directory (apps/<name>/dist): the image copies this directory and nothing else
 * @property {string[]} external  packages left out of the bundle (native code or WebAssembly loaded from their own
 *   directory)
 * @property {string[]} vendor  packages copied into <dir>/node_modules so the directory runs on its own: the
 *   external ones, and @svc/native, whose TypeScript is bundled but whose addon is found through its package.json
 */

/** @type {readonly Bundle[]} */
export const BUNDLES = [
  {
    name: "agent",
    entry: "apps/agent/src/bin.ts",
    dir: "apps/agent/dist",
    external: [],
    vendor: ["@svc/native"],
  },
  {
    name: "controller",
    entry: "apps/controller/src/bin.ts",
    dir: "apps/controller/dist",
    external: [],
    vendor: [],
  },
  {
    name: "console",
    entry: "apps/console/src/bin.ts",
    dir: "apps/console/dist",
    external: ["@electric-sql/pglite", "@node-rs/argon2", "pg-native"],
    vendor: ["@electric-sql/pglite", "@node-rs/argon2"],
  },
];

/** The bundle file of a binary inside `dir` (a build output directory). */
export function bundleFile(dir, name) {
  return join(dir, `${name}.mjs`);
}
