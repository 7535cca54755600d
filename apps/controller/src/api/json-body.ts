import type { FastifyInstance } from "fastify";
import { InvalidInputError } from "../errors.ts";

/**
 * Deepest nesting of arrays and objects the controller accepts in a JSON body. Its own bodies nest 4 levels
 * (external-checks: body, agents, list, spec, target/params); 64 leaves room for any `params` a caller sends
 * while keeping every later walk of the value (JSON.stringify when dispatching, validation) far from the stack
 * limit, which a body nested 100,000 deep reached (500 "Maximum call stack size exceeded").
 */
export const MAX_JSON_DEPTH = 64;

/** Largest body of a controller route that declares no limit of its own (Fastify's default, 1 MiB). */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/** True when `text` opens more than `max` arrays/objects at once (strings skipped); never recurses. */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) depth--;
  }
  return false;
}

/**
 * Parses a JSON text for the controller: nesting deeper than MAX_JSON_DEPTH is refused before parsing, and every
 * failure is an InvalidInputError (HTTP 400) whose message starts with `malformed JSON:`.
 */
export function parseJsonText(text: string): unknown {
  if (text.trim() === "") throw new InvalidInputError("malformed JSON: empty body");
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
    throw new InvalidInputError(`malformed JSON: nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new InvalidInputError(`malformed JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * The controller's one body parser: whatever the Content-Type, the body is read as text (up to the route's
 * `bodyLimit`, else DEFAULT_BODY_LIMIT; 413 beyond) and parsed with parseJsonText, so a route's handler gets the
 * parsed value and a malformed or too deeply nested body is a 400 in the route's own error style; a request no
 * route matches is left unparsed, so it gets its 404 (over the limit it is still 413). Replaces the
 * parsers of `app` (and of the scopes registered under it afterwards).
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string", bodyLimit: DEFAULT_BODY_LIMIT }, (req, body, done) => {
    // no route: the 404 stands whatever the body (Fastify reads it before the not-found handler)
    if (req.is404) {
      done(null, undefined);
      return;
    }
    try {
      done(null, parseJsonText(typeof body === "string" ? body : body.toString("utf8")));
    } catch (err) {
      done(err as InvalidInputError, undefined);
    }
  });
}
