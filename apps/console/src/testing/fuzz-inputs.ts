/**
 * Test helper: fast-check arbitraries of requests to one contract route, drawn from its zod schemas: bodies shaped
 * like the schema with odd values (control characters, lone surrogates, wrong types, huge strings), keys dropped or
 * added (`__proto__`, `constructor`), any JSON, deeply nested JSON, non-JSON text, huge bodies, other content
 * types; path parameters from odd strings, valid-looking ids and raw (undecodable) segments.
 */
import type { RouteSpec } from "@svc/contract";
import fc from "fast-check";
import { z } from "zod";

/** One generated request. */
export interface FuzzRequest {
  url: string;
  /** path parameters as the server decodes them; undefined when a raw segment was used */
  params?: Record<string, string>;
  contentType?: string;
  payload?: string;
}

/** Strings every string field may get besides random ones: valid-looking values and known troublemakers. */
const STRING_POOL = [
  "viewer",
  "admin",
  "operator",
  "group:ops",
  "local:x",
  "header:y",
  "oidc:z",
  "audit:read",
  "users:manage",
  "a",
  "b",
  "newbie",
  "ci",
  "a-long-enough-password",
  "2999-01-01T00:00:00Z",
  "2000-01-01T00:00:00Z",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\uD800",
  "x\uDC00",
  "\u202E\u0007\u001B[2J",
  "../../etc/passwd",
  "<script>",
  "'; DROP TABLE users; --",
];

const PROTO_KEYS = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf"];

/** Bodies over the console's 1 MiB limit (413) and just under it, drawn as markers (short counterexamples). */
const LARGE: Readonly<Record<string, string>> = {
  "@huge@": JSON.stringify({ name: "x".repeat(1_100_000) }),
  "@big@": JSON.stringify({ name: "y".repeat(900_000) }),
};

/** The payload text to send for `r` (the large-body markers expanded). */
export function payloadText(r: FuzzRequest): string | undefined {
  return r.payload !== undefined && Object.hasOwn(LARGE, r.payload) ? LARGE[r.payload] : r.payload;
}

function stringArb(extra: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...STRING_POOL, ...extra) },
    { weight: 3, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 60, maxLength: 400 }) },
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: 20_000 }).map((n) => "z".repeat(n)) },
  );
}

/** Any JSON value, including wrong types for every field. */
const anyJson = fc.jsonValue({ maxDepth: 3 });

/** A value for schema `s`: mostly of its type (with odd content), sometimes anything. */
function valueArb(s: z.ZodType, extra: readonly string[]): fc.Arbitrary<unknown> {
  const wrong = fc.oneof(anyJson, fc.constantFrom(null, 0, -1, 1e308, true, [], {}));
  if (s instanceof z.ZodOptional || s instanceof z.ZodNullable)
    return fc.oneof(valueArb(s.unwrap() as z.ZodType, extra), fc.constant(null));
  let typed: fc.Arbitrary<unknown>;
  if (s instanceof z.ZodArray) {
    typed = fc.array(valueArb(s.element as z.ZodType, extra), { maxLength: 70 });
  } else if (s instanceof z.ZodLiteral) {
    typed = fc.constantFrom(...(s.values as Set<unknown>));
  } else if (s.def.type === "string") {
    typed = stringArb(extra);
  } else {
    typed = anyJson;
  }
  return fc.oneof({ weight: 5, arbitrary: typed }, { weight: 1, arbitrary: wrong });
}

/** JSON object text from entries (kept as text, so `__proto__` stays an own key as a client would send it). */
function objectText(entries: readonly (readonly [string, unknown])[]): string {
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? "null"}`).join(",")}}`;
}

/** Bodies shaped like `schema`: each key kept or dropped, odd values, sometimes extra or prototype keys. */
function shapedBody(schema: z.ZodObject, extra: readonly string[]): fc.Arbitrary<string> {
  const shape = schema.shape as Record<string, z.ZodType>;
  const fields = Object.entries(shape).map(([k, s]) =>
    fc.option(
      valueArb(s, extra).map((v) => [k, v] as const),
      { freq: 6 },
    ),
  );
  const extras = fc.array(fc.tuple(fc.constantFrom(...PROTO_KEYS, "extra", "role", "admin"), anyJson), {
    maxLength: 2,
  });
  return fc
    .tuple(fc.tuple(...fields), fc.option(extras, { freq: 4 }))
    .map(([kept, added]) => objectText([...kept.filter((x) => x !== null), ...(added ?? [])]));
}

/** Nesting `depth` levels of arrays or objects. */
const deepNested = fc
  .tuple(fc.integer({ min: 50, max: 20_000 }), fc.boolean())
  .map(([depth, arrays]) =>
    arrays ? `${"[".repeat(depth)}${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`,
  );

/** Prototype-poisoning shapes. */
const protoBody = fc.constantFrom(
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"admin":true}}}',
  '{"__proto__":null,"name":"x"}',
  '{"name":"x","__proto__":{"role":"admin"}}',
);

/** Text that is not a JSON body. */
const junk = fc.oneof(
  fc.constantFrom("", "{", "{not json", "null", "[]", '"str"', "1e999", "\u0000", "{}}"),
  fc.string({ unit: "binary", maxLength: 50 }),
);

/** Arbitrary payloads for `spec` (a route without a body mostly gets none). */
function payloadArb(spec: RouteSpec, validBody: unknown, extra: readonly string[]) {
  const json = (a: fc.Arbitrary<string>) =>
    a.map((payload) => ({ contentType: "application/json", payload }));
  const valid = validBody === undefined ? "{}" : JSON.stringify(validBody);
  const shaped = spec.body instanceof z.ZodObject ? shapedBody(spec.body, extra) : fc.constant(valid);
  return fc.oneof(
    { weight: spec.body ? 1 : 8, arbitrary: fc.constant({}) },
    { weight: 8, arbitrary: json(shaped) },
    { weight: 2, arbitrary: json(fc.constant(valid)) },
    { weight: 2, arbitrary: json(anyJson.map((v) => JSON.stringify(v))) },
    { weight: 1, arbitrary: json(deepNested) },
    { weight: 1, arbitrary: json(protoBody) },
    { weight: 1, arbitrary: json(junk) },
    {
      weight: 1,
      arbitrary: fc.record({
        contentType: fc.constantFrom("text/plain", "application/x-www-form-urlencoded", "application/xml"),
        payload: fc.constant(valid),
      }),
    },
    { weight: 1, arbitrary: json(fc.constantFrom(...Object.keys(LARGE))) },
  );
}

/** Path segments: odd strings, ids, the valid one; `raw` ones are sent undecoded. */
function paramArb(valid: string | undefined): fc.Arbitrary<{ value: string; raw: boolean }> {
  const decoded = fc.oneof(
    fc.constantFrom(...(valid ? [valid, valid, valid] : []), ...PROTO_KEYS, "x".repeat(300), "a/b"),
    fc.uuid(),
    fc.string({ unit: "binary", minLength: 1, maxLength: 80 }),
    fc.constantFrom("\u0000", "\uD800", "%", "?x=1", "#frag"),
  );
  return fc.oneof(
    { weight: 9, arbitrary: decoded.map((value) => ({ value, raw: false })) },
    {
      weight: 1,
      // sent as they are: undecodable, or dot segments a client normalises away
      arbitrary: fc
        .constantFrom("%ZZ", "%00", "%E0%A4%A", "..%2F..", ".", "..")
        .map((value) => ({ value, raw: true })),
    },
  );
}

/** Requests to `spec`, around a valid example (its params and body). */
export function requestArb(
  spec: RouteSpec,
  example: { params?: Record<string, string>; body?: unknown },
): fc.Arbitrary<FuzzRequest> {
  const extra = Object.values(example.params ?? {});
  const names = [...spec.path.matchAll(/\{([A-Za-z]+)\}/g)].map((m) => m[1] ?? "");
  const params = fc.tuple(...names.map((n) => paramArb(example.params?.[n])));
  const query = fc.option(fc.constantFrom("?__proto__=1", "?constructor=x&a[b]=c", "?x=%00"), { freq: 8 });
  return fc.tuple(params, payloadArb(spec, example.body, extra), query).map(([ps, p, q]) => {
    const values: Record<string, string> = Object.create(null);
    names.forEach((n, i) => {
      values[n] = ps[i]?.value ?? "";
    });
    // a lone surrogate cannot be URI-encoded: it goes as its WTF-8 bytes (%ED%A0%80), and counts as raw
    const raw = ps.some((x) => x.raw || !wellFormed(x.value));
    const path = spec.path.replace(/\{([A-Za-z]+)\}/g, (_m, n: string) => {
      const v = values[n] ?? "";
      if (!wellFormed(v)) return wtf8(v);
      return ps[names.indexOf(n)]?.raw ? v : encodeURIComponent(v);
    });
    return { url: `${path}${q ?? ""}`, params: raw ? undefined : { ...values }, ...p };
  });
}

/** Percent-encoded WTF-8 (UTF-8 that lets lone surrogates through as 3 bytes each). */
function wtf8(v: string): string {
  let out = "";
  for (const ch of v) {
    const c = ch.codePointAt(0) ?? 0;
    if (c >= 0xd800 && c <= 0xdfff) {
      out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join("");
    } else out += encodeURIComponent(ch);
  }
  return out;
}

/** False for a string holding a lone surrogate (which encodeURIComponent refuses). */
function wellFormed(v: string): boolean {
  try {
    encodeURIComponent(v);
    return true;
  } catch {
    return false;
  }
}
