/** Reading a configuration file and parsing its YAML, with every failure a ConfigError a user can act on. */
import { readFileSync } from "node:fs";
import YAML from "yaml";
import { ConfigError } from "./error.ts";

/**
 * Reads the file at `path` as UTF-8. Throws ConfigError `<path>: cannot read config file (<errno code>)`
 * (source `in <path>`) when it cannot be read.
 */
export function readConfigFile(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? String(e);
    throw new ConfigError([`${path}: cannot read config file (${code})`], `in ${path}`);
  }
}

/**
 * Parses YAML `text` (duplicate keys refused) into plain JS; an empty document or only comments gives null or
 * undefined. Throws ConfigError (source `where`) with one issue per syntax error, as
 * `line L, column C: <message>` when the parser knows the position.
 */
export function parseYamlSource(text: string, where?: string): unknown {
  const doc = YAML.parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      doc.errors.map((e) => {
        const pos = e.linePos?.[0];
        const msg = e.message.split(" at line ")[0] ?? e.message;
        return pos ? `line ${pos.line}, column ${pos.col}: ${msg}` : msg;
      }),
      where,
    );
  }
  return doc.toJS();
}
