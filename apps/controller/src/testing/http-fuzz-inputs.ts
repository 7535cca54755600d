/**
 * Test helper: fast-check arbitraries of HTTP requests to one controller route (http-fuzz.test.ts): the route's
 * method or another one, odd query strings and path variants, bodies shaped like the route's own (diagnostics,
 * external-checks) with odd values, any JSON, deeply nested JSON, truncated JSON, prototype keys, control
 * characters, non-JSON text, bodies over the route's limit, other content types or none.
 */
import fc from "fast-check";

/** One generated request. `body` may be a large-body marker (see bodyText). */
export interface HttpCase {
  method: string;
  /** path and query as sent */
  url: string;
  /** true when `url` is the route's own path (a query string aside) */
  ownPath: boolean;
  contentType?: string;
  body?: string;
}

/** Which body a route takes. */
export type BodyKind = "diagnostics" | "external-checks" | "none";

/** Methods requests use besides the route's own ones. */
export const METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"] as const;

const STRINGS = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\t\n",
  "\u0007\u001b[2J",
  "\u202e",
  "\uD800",
  "x\uDC00",
  "\u{1F600}",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "../../etc/passwd",
  "<script>",
  "x".repeat(300),
];

const PROTO_KEYS = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf"];

/** Large bodies, drawn as markers so counterexamples stay short. */
const LARGE: Readonly<Record<string, () => string>> = {
  "@diag-over@": () =>
    JSON.stringify({ source: "node-a", destination: "node-b", type: "tcp", pad: "x".repeat(65_536) }),
  "@diag-under@": () =>
    JSON.stringify({ source: "node-a", destination: "node-b", type: "tcp", pad: "x".repeat(60_000) }),
  "@ext-over@": () => JSON.stringify({ agents: { "fz-a": [] }, pad: "y".repeat(8 * 1024 * 1024) }),
  "@mib-over@": () => JSON.stringify({ pad: "z".repeat(1024 * 1024) }),
};
const largeCache = new Map<string, string>();

/** The body text to send for `c` (large-body markers expanded, each built once). */
export function bodyText(c: HttpCase): string | undefined {
  const make = c.body !== undefined && Object.hasOwn(LARGE, c.body) ? LARGE[c.body] : undefined;
  if (make === undefined || c.body === undefined) return c.body;
  let text = largeCache.get(c.body);
  if (text === undefined) {
    text = make();
    largeCache.set(c.body, text);
  }
  return text;
}

function stringArb(pool: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...pool) },
    { weight: 3, arbitrary: fc.constantFrom(...STRINGS) },
    { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 30 }) },
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: 5000 }).map((n) => "s".repeat(n)) },
  );
}

const anyJson = fc.jsonValue({ maxDepth: 3 });
const wrong = fc.oneof(anyJson, fc.constantFrom(null, 0, -1, 1.5, 1e308, true, [], {}));

/** A value from `pool` mostly, sometimes an odd string or a wrong type. */
function fieldValue(pool: readonly string[]): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 6, arbitrary: stringArb(pool) }, { weight: 1, arbitrary: wrong });
}

/** JSON object text from entries (text, so `__proto__` stays an own key as a client would send it). */
function objectText(entries: readonly (readonly [string, unknown])[]): string {
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? "null"}`).join(",")}}`;
}

/** An object with each field kept (mostly) or dropped, sometimes prototype or extra keys. */
function shaped(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<string> {
  const parts = Object.entries(fields).map(([k, a]) =>
    fc.option(
      a.map((v) => [k, v] as const),
      { freq: 7 },
    ),
  );
  const extras = fc.array(fc.tuple(fc.constantFrom(...PROTO_KEYS, "extra"), anyJson), { maxLength: 2 });
  return fc
    .tuple(fc.tuple(...parts), fc.option(extras, { freq: 4 }))
    .map(([kept, added]) => objectText([...kept.filter((x) => x !== null), ...(added ?? [])]));
}

const NODES = ["node-a", "node-b", "node-x"];

/** Bodies the route accepts: node or external destinations, every type (node-a's agent answers, node-b has none). */
const validDiagnostics = fc
  .record({
    source: fc.constantFrom("node-a", "node-a", "node-b", "node-x"),
    destination: fc.constantFrom("node-a", "node-b", "node-x"),
    type: fc.constantFrom("tcp", "udp", "icmp", "pmtu", "dns", "http", "mtr"),
    external: fc.boolean(),
  })
  .map(({ external, ...b }) =>
    JSON.stringify(
      external && ["tcp", "icmp", "mtr"].includes(b.type)
        ? { ...b, destination: "example", destinationKind: "external", destinationAddress: "198.18.0.9" }
        : b,
    ),
  );

const shapedDiagnostics = shaped({
  source: fieldValue(NODES),
  destination: fieldValue([...NODES, "example.org"]),
  type: fieldValue(["tcp", "udp", "icmp", "pmtu", "dns", "http", "mtr", "TCP", "ping"]),
  plane: fieldValue(["pod", "host"]),
  destinationKind: fieldValue(["node", "external", "Node"]),
  destinationAddress: fieldValue(["198.18.0.9", "example.org", " "]),
  params: fc.oneof(
    fc.constantFrom({}, { query: "example.org" }, { url: "http://x/" }, { rounds: 3 }, "{}", null),
    anyJson,
  ),
});

const diagnosticsBody = fc.oneof(
  { weight: 3, arbitrary: shapedDiagnostics },
  { weight: 1, arbitrary: validDiagnostics },
);

const specObject = fc.record(
  {
    definitionId: fieldValue(["def-1", "def-2"]),
    checkType: fieldValue(["tcp", "icmp", "dns", "http", "udp", "mtr"]),
    target: fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record(
          {
            name: fieldValue(["web", "dns-1"]),
            kind: fieldValue(["host", "url"]),
            address: fieldValue(["198.18.0.9", "http://198.18.0.9/", "example.org", "a".repeat(2049)]),
            port: fc.oneof(fc.constantFrom(0, 443, 65_535, 65_536, -1, 1.5), wrong),
          },
          { requiredKeys: [] },
        ),
      },
      { weight: 1, arbitrary: wrong },
    ),
    intervalNs: fc.oneof(fc.constantFrom(1_000_000_000, 0, -1, 2 ** 53, 1.5), wrong),
    timeoutNs: fc.oneof(fc.constantFrom(500_000_000, 0, 2 ** 60), wrong),
    params: fc.oneof(
      fc.constantFrom(
        {},
        { query: "example.org" },
        '{"query":"x"}',
        "[",
        `${"[".repeat(70)}${"]".repeat(70)}`,
        "",
        null,
        5,
      ),
      anyJson,
    ),
  },
  { requiredKeys: [] },
);

/** A valid spec (tcp to a host), so many bodies pass validation. */
const validSpec = fc.constantFrom("def-1", "def-2").map((definitionId) => ({
  definitionId,
  checkType: "tcp",
  target: { name: "web", kind: "host", address: "198.18.0.9", port: 0 },
  intervalNs: 1_000_000_000,
  timeoutNs: 500_000_000,
  params: {},
}));

const externalChecksBody = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .array(
        fc.tuple(
          fc.oneof(fc.constantFrom("fz-a", "fz-b", "unknown-id", ...PROTO_KEYS), stringArb(["fz-a"])),
          fc.oneof(
            { weight: 4, arbitrary: fc.array(fc.oneof(validSpec, specObject), { maxLength: 3 }) },
            { weight: 1, arbitrary: wrong },
          ),
        ),
        { maxLength: 4 },
      )
      .map((entries) => `{"agents":${objectText(entries)}}`),
  },
  { weight: 1, arbitrary: shaped({ agents: fc.oneof(wrong, fc.constant({})) }) },
  {
    weight: 1,
    arbitrary: fc.array(validSpec, { maxLength: 2 }).map((l) => JSON.stringify({ agents: { "fz-a": l } })),
  },
);

/** Nesting `depth` levels of arrays or objects (over 64: the controller refuses with 400). */
const deepNested = fc
  .tuple(fc.integer({ min: 60, max: 20_000 }), fc.boolean())
  .map(([depth, arrays]) =>
    arrays ? `${"[".repeat(depth)}${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`,
  );

const protoBody = fc.constantFrom(
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"admin":true}}}',
  '{"__proto__":null,"source":"node-a"}',
  '{"agents":{"__proto__":[]}}',
  '{"agents":{"constructor":[]},"__proto__":{"agents":{}}}',
);

const junk = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "{",
    "{not json",
    "null",
    "[]",
    '"str"',
    "1e999",
    "\u0000",
    "{}}",
    "\uFEFF{}",
    "true",
  ),
  fc.string({ unit: "binary", maxLength: 50 }),
);

function bodyArb(kind: BodyKind): fc.Arbitrary<string> {
  const own =
    kind === "diagnostics"
      ? diagnosticsBody
      : kind === "external-checks"
        ? externalChecksBody
        : anyJson.map((v) => JSON.stringify(v));
  const truncated = fc
    .tuple(own, fc.nat())
    .filter(([t]) => t.length > 1)
    .map(([t, n]) => t.slice(0, n % t.length));
  return fc.oneof(
    { weight: 10, arbitrary: own },
    { weight: 2, arbitrary: anyJson.map((v) => JSON.stringify(v)) },
    { weight: 2, arbitrary: truncated },
    { weight: 1, arbitrary: deepNested },
    { weight: 1, arbitrary: protoBody },
    { weight: 1, arbitrary: junk },
    { weight: 1, arbitrary: fc.constantFrom(...Object.keys(LARGE)) },
  );
}

const CONTENT_TYPES = [
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/xml",
  "application/json; charset=utf-16",
  "application/octet-stream",
  "*/*",
];

/** Query strings: the route's own (diagnostics timeout) and odd ones. */
const query = fc.option(
  fc.constantFrom(
    "?timeout=5",
    "?timeout=0.05",
    "?timeout=0",
    "?timeout=-1",
    "?timeout=1e309",
    "?timeout=abc",
    "?timeout=999999",
    "?timeout=1&timeout=2",
    "?timeout=%00",
    "?__proto__=1",
    "?constructor=x&a[b]=c",
    "?__proto__[x]=1",
    "?x=%ZZ",
    "?x=%E0%A4%A",
    `?q=${"a".repeat(5000)}`,
  ),
  { freq: 3 },
);

/** Path variants of `path` that are not it (each must be a 404, never a 5xx). */
const pathVariants = (path: string) =>
  fc.constantFrom(
    `${path}/`,
    `${path}//`,
    `${path}/x`,
    `${path}%00`,
    `${path}/..`,
    `${path.toUpperCase()}`,
    `${path}%2F`,
    `/${path}`,
    `${path};a=b`,
  );

/** Requests to a route at `path` served for `methods`, with `body` bodies. */
export function requestArb(path: string, methods: readonly string[], body: BodyKind): fc.Arbitrary<HttpCase> {
  const method = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...methods) },
    { weight: 2, arbitrary: fc.constantFrom(...METHODS) },
  );
  const target = fc.oneof(
    { weight: 12, arbitrary: query.map((q) => ({ url: `${path}${q ?? ""}`, ownPath: true })) },
    { weight: 1, arbitrary: pathVariants(path).map((url) => ({ url, ownPath: url === path })) },
  );
  const payload = fc.oneof(
    { weight: body === "none" ? 8 : 1, arbitrary: fc.constant({}) },
    {
      weight: 10,
      arbitrary: fc
        .tuple(bodyArb(body), fc.option(fc.constantFrom(...CONTENT_TYPES), { freq: 6 }), fc.boolean())
        .map(([text, ct, none]) => ({
          body: text,
          contentType: none && ct === null ? undefined : (ct ?? "application/json"),
        })),
    },
  );
  return fc.tuple(method, target, payload).map(([m, t, p]) => ({ method: m, ...t, ...p }));
}
