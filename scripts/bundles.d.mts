/** Types of scripts/bundles.mjs (plain JavaScript: scripts/build.mjs runs without a TypeScript loader). */
export declare const ROOT: string;
export interface Bundle {
  name: "agent" | "controller" | "console";
  /** TypeScript entry (apps/<name>/src/bin.ts) */
  entry: string;
  /** bundle directory (apps/<name>/dist), relative to the repository root */
  dir: string;
  /** packages left out of the bundle */
  external: string[];
  /** packages copied into <dir>/node_modules */
  vendor: string[];
}
export declare const BUNDLES: readonly Bundle[];
export declare function bundleFile(dir: string, name: string): string;
