/**
 * docs/console-api.md, rendered from the OpenAPI document (so the two cannot disagree). Types are written in a
 * TypeScript-like shorthand: `{ name: string, expiresAt?: string | null }`, `UserView[]`, `"a" | "b"`.
 */
import type { OpenApiDocument } from "./openapi.ts";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

const obj = (v: Json | undefined): JsonObject =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? v : {};
const arr = (v: Json | undefined): Json[] => (Array.isArray(v) ? v : []);

/** The shorthand type of a JSON Schema. */
export function typeText(s: Json | undefined, depth = 0): string {
  const o = obj(s);
  if (typeof o.$ref === "string") return o.$ref.slice(o.$ref.lastIndexOf("/") + 1);
  if (o.const !== undefined) return JSON.stringify(o.const);
  if (Array.isArray(o.enum)) return o.enum.map((e) => JSON.stringify(e)).join(" | ");
  for (const k of ["anyOf", "oneOf"])
    if (Array.isArray(o[k]))
      return arr(o[k])
        .map((x) => typeText(x, depth))
        .join(" | ");
  switch (o.type) {
    case "array":
      return `${wrap(typeText(o.items, depth))}[]`;
    case "object": {
      const props = obj(o.properties);
      const keys = Object.keys(props);
      const extra = o.additionalProperties;
      if (keys.length === 0)
        return extra && typeof extra === "object" ? `{ [key: string]: ${typeText(extra, depth)} }` : "object";
      if (depth >= 2) return "{ ... }";
      const required = new Set(arr(o.required).map(String));
      return `{ ${keys.map((k) => `${k}${required.has(k) ? "" : "?"}: ${typeText(props[k], depth + 1)}`).join(", ")} }`;
    }
    case "integer":
      return "integer";
    case undefined:
      return "any";
    default:
      return String(o.type);
  }
}

const wrap = (t: string) => (t.includes(" | ") ? `(${t})` : t);
const cell = (t: string) => t.replaceAll("|", "\\|").replaceAll("\n", " ");

/** The markdown page. */
export function renderApiDocs(doc: OpenApiDocument, wsSchemas: readonly string[]): string {
  const out: string[] = [];
  const info = obj(doc.info);
  out.push(
    "# Console HTTP API",
    "",
    "<!-- Generated from packages/contract by `npm run gen:contract`; do not edit by hand (a test fails on drift). -->",
    "",
    `Version ${String(info.version)}. The same contract is served as OpenAPI 3.1 at \`GET /api/v1/openapi.json\``,
    "(committed as `packages/contract/openapi.json`). Routes whose path the spec names are marked **spec**; the",
    "others are the console's own choice.",
    "",
    "Conventions:",
    "",
    "- Callers: a session cookie (`__Host-svc_session`, local or oidc sign-in), trusted-proxy headers (header mode), a",
    "  bearer API token (`Authorization: Bearer svct_...`), or the anonymous caller (anonymous mode).",
    "- State-changing requests carried by a session cookie need `X-CSRF-Token` equal to the CSRF cookie",
    "  (`__Host-svc_csrf`); bearer-token requests need none. Missing or wrong: 403.",
    "- No caller: 401. Missing permission: 403 (a token holds exactly `auth.defaultRole`; empty = 403 everywhere).",
    '- Every error answers `ErrorBody`: `{ "error": { "code": "...", "message": "..." } }`; 429 carries `Retry-After`.',
    "- Input is validated against the contract: malformed query or body 400 (`invalid_input`); a path parameter that",
    "  cannot name an object 404. Strings must not contain NUL or unpaired surrogates (400). Unknown body keys: 400.",
    "- A tutorial: every POST and PUT with a body shows an example; the examples run in order against a fresh",
    "  `svc lab` (agents node-1, node-2, node-3) and each succeeds. Sign in with `login`'s example (the password",
    "  `svc lab` printed), run the rest in the order below, change the password and sign out last. `<id from createX>`",
    "  stands for the id the `createX` example answered; a path's `{id}` is the id its resource's create example",
    "  answered, and a custom role's `{name}` is yours to pick (test/e2e/lab-examples.test.ts walks them all).",
    "",
    "| Method | Path | Access | Summary |",
    "|---|---|---|---|",
  );
  const ops: { method: string; path: string; op: JsonObject }[] = [];
  for (const [path, item] of Object.entries(obj(doc.paths)))
    for (const [method, op] of Object.entries(obj(item)))
      ops.push({ method: method.toUpperCase(), path, op: obj(op) });
  for (const { method, path, op } of ops) {
    const spec = String(op.description ?? "").includes("Path named by the spec") ? " **spec**" : "";
    out.push(`| ${method} | \`${path}\`${spec} | ${access(op)} | ${cell(String(op.summary ?? ""))} |`);
  }
  out.push("");
  for (const { method, path, op } of ops) {
    out.push(
      `## ${method} \`${path}\``,
      "",
      `\`${String(op.operationId)}\` · ${access(op)}. ${String(op.summary)}.`,
      "",
    );
    const desc = String(op.description ?? "")
      .split("\n\n")
      .filter((p) => !p.startsWith("Access:") && !p.startsWith("Path named"));
    if (desc.length > 0) out.push(...desc, "");
    for (const p of arr(op.parameters).map(obj)) {
      const d = p.description ? ` — ${String(p.description)}` : "";
      out.push(
        `- ${String(p.in)} \`${String(p.name)}\`${p.required ? "" : " (optional)"}: \`${typeText(p.schema)}\`${d}`,
      );
    }
    const body = obj(obj(obj(op.requestBody).content)["application/json"]).schema;
    if (body !== undefined) out.push(`- body: \`${typeText(body)}\``);
    const example = obj(obj(obj(op.requestBody).content)["application/json"]).example;
    if (example !== undefined) out.push(`- example: \`${JSON.stringify(example)}\``);
    for (const [status, r] of Object.entries(obj(op.responses))) {
      const content = obj(obj(r).content);
      const [type] = Object.keys(content);
      const what =
        type === undefined
          ? "no body"
          : type === "application/json"
            ? `\`${typeText(obj(content[type]).schema)}\``
            : `\`${type}\``;
      out.push(`- ${status}: ${what}`);
    }
    out.push("");
  }
  out.push("## Schemas", "");
  const schemas = obj(obj(doc.components).schemas);
  for (const name of Object.keys(schemas)) {
    const s = obj(schemas[name]);
    out.push(`### ${name}`, "");
    if (typeof s.description === "string") out.push(s.description, "");
    out.push("```ts", `${name} = ${typeText({ ...s, description: null }, 0)}`, "```", "");
    if (wsSchemas.includes(name)) out.push("(a WebSocket message on `/ws`)", "");
  }
  return `${out.join("\n").trimEnd()}\n`;
}

function access(op: JsonObject): string {
  const a = String(op["x-permission"]);
  return a === "none" ? "none" : a === "caller" ? "(caller)" : a === "role" ? "(any role)" : `\`${a}\``;
}
