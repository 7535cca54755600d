/**
 * Test helper: fast-check arbitraries of raw request bytes for every RPC of svc.proto (grpc-fuzz.test.ts). Each
 * message is written field by field with a small protobuf writer, so a case may hold what the generated encoder
 * never writes: invalid UTF-8 in strings, varints over 32 bits in uint32 fields, out-of-range 64-bit numbers,
 * repeated singular fields, wrong wire types, unknown fields, prototype keys (`__proto__`, `constructor`) in maps,
 * huge strings (up to ~1 MB). Besides shaped messages: truncated ones, random bytes, and one over the server's
 * 4 MiB receive limit.
 */
import fc from "fast-check";

/** A protobuf field type as the fuzzer writes it. */
export type FieldType =
  | "string"
  | "uint32"
  | "int64"
  | "uint64"
  | "bool"
  | "double"
  | { map: ["string", "string" | "uint64"] }
  | { repeated: "string" }
  | { repeatedMessage: MessageSchema };

/** A message schema: field number -> [name, type, pool of valid-looking string values]. */
export type MessageSchema = Record<number, readonly [string, FieldType, (readonly string[])?]>;

/** svc.v1.PairProblem (inside ReportPairStateRequest). */
const PAIR_PROBLEM: MessageSchema = {
  1: ["destination_node", "string", ["fz-a-node", "fz-b-node", "unknown-node"]],
  2: ["plane", "string", ["tcp", "udp", "icmp", "pmtu", "dns"]],
  3: ["ratio", "double"],
};

/** The request messages of svc.proto, field by field (numbers as in the .proto). */
export const REQUEST_SCHEMAS = {
  RegisterRequest: {
    1: ["node_name", "string", ["fz-node-1", "fz-node-2", "node-a"]],
    2: [
      "advertise_address",
      "string",
      ["198.18.0.40", "198.18.0.41", "10.1.2.3", "fd00::1", "127.0.0.1", "0.0.0.0"],
    ],
    3: ["zone", "string", ["zone-a", "zone-b", "external"]],
    4: ["labels", { map: ["string", "string"] }],
    5: ["capabilities", { repeated: "string" }, ["plane:tcp", "plane:udp", "external-checks"]],
    6: ["http_port", "uint32"],
    7: ["udp_port", "uint32"],
    8: ["metrics_port", "uint32"],
    9: ["version", "string", ["2.5.0", "1.0.0"]],
    10: ["agent_id", "string", ["fz-id-1"]],
  },
  HeartbeatRequest: { 1: ["agent_id", "string"] },
  DeregisterRequest: { 1: ["agent_id", "string"] },
  WatchPeersRequest: { 1: ["agent_id", "string"], 2: ["incremental", "bool"] },
  WatchTasksRequest: { 1: ["agent_id", "string"] },
  TaskResult: {
    1: ["agent_id", "string"],
    2: ["task_id", "string"],
    3: ["success", "bool"],
    4: ["error", "string"],
    5: ["duration_ns", "int64"],
    6: ["details_json", "string", ["{}", '{"a":1}', "[", '{"__proto__":{"x":1}}', "[".repeat(10_000)]],
    7: ["timestamp_unix_ns", "int64"],
  },
  WatchExternalChecksRequest: { 1: ["agent_id", "string"] },
  SubscribeEventsRequest: {
    1: ["after", { map: ["string", "uint64"] }, ["topology", "checks", "mtr", "diagnostics"]],
  },
  ReportPairStateRequest: {
    1: ["agent_id", "string"],
    2: ["seq", "uint64"],
    3: ["full", "bool"],
    4: ["problems", { repeatedMessage: PAIR_PROBLEM }],
    5: ["cleared", { repeatedMessage: PAIR_PROBLEM }],
  },
} as const satisfies Record<string, MessageSchema>;

// ---- a minimal protobuf writer (enough to write what the generated encoder refuses to) ----

function varint(n: bigint): number[] {
  let v = BigInt.asUintN(64, n);
  const out: number[] = [];
  while (v > 0x7fn) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}

const WIRE_VARINT = 0;
const WIRE_LEN = 2;

function tag(field: number, wire: number): number[] {
  return varint(BigInt((field << 3) | wire));
}

/** One encoded field value: a varint, 8 fixed bytes (double) or length-delimited bytes. */
export type Wire =
  | { wire: "varint"; value: bigint }
  | { wire: "fixed64"; bytes: Buffer }
  | { wire: "len"; bytes: Buffer };

const WIRE_FIXED64 = 1;

function fieldBytes(field: number, w: Wire): Buffer {
  if (w.wire === "varint") return Buffer.from([...tag(field, WIRE_VARINT), ...varint(w.value)]);
  if (w.wire === "fixed64") return Buffer.concat([Buffer.from(tag(field, WIRE_FIXED64)), w.bytes]);
  return Buffer.concat([Buffer.from([...tag(field, WIRE_LEN), ...varint(BigInt(w.bytes.length))]), w.bytes]);
}

/** A message from (field, value) pairs in order. */
export function encodeFields(fields: readonly (readonly [number, Wire])[]): Buffer {
  return Buffer.concat(fields.map(([f, w]) => fieldBytes(f, w)));
}

// ---- values ----

/** Strings every string field may get: known troublemakers. */
const ODD_STRINGS = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\t\n\r",
  "\u0007\u001b[2J",
  "\u202e",
  "\uFEFF",
  "\u{1F600}",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "../../etc/passwd",
  "x".repeat(64),
  "x".repeat(254),
  "x".repeat(1024),
];

/** Byte sequences that are not UTF-8 (a lone surrogate, overlong NUL, stray continuation, truncated sequence). */
const INVALID_UTF8 = [
  [0xff],
  [0xfe, 0xff],
  [0xc0, 0x80],
  [0xed, 0xa0, 0x80],
  [0x80, 0x80],
  [0x61, 0xe2, 0x82],
  [0xf4, 0x90, 0x80, 0x80],
].map((b) => Buffer.from(b));

/** Huge strings by length, written lazily (counterexamples stay short): up to ~1 MB. */
const HUGE_LENGTHS = [4096, 65_537, 300_000, 1_048_576];

/** Ids the fuzzer mixes in: the suite's registered agents and a few unknown ones. */
export const KNOWN_IDS = ["fz-a", "fz-b"];

function bytesOf(s: string): Buffer {
  return Buffer.from(s, "utf8");
}

/** A string field's bytes: valid pool values, odd strings, random text, invalid UTF-8, huge strings. */
function stringWire(pool: readonly string[]): fc.Arbitrary<Buffer> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...pool, ...KNOWN_IDS, "unknown-id").map(bytesOf) },
    { weight: 3, arbitrary: fc.constantFrom(...ODD_STRINGS).map(bytesOf) },
    { weight: 3, arbitrary: fc.string({ unit: "binary", maxLength: 40 }).map(bytesOf) },
    { weight: 1, arbitrary: fc.stringMatching(/^[a-z0-9][a-z0-9.-]{0,20}$/).map(bytesOf) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...INVALID_UTF8), fc.constantFrom("", "node-", "ok"))
        .map(([bad, prefix]) => Buffer.concat([bytesOf(prefix), bad])),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...HUGE_LENGTHS), fc.constantFrom("x", "\u00e9", "\u0000"))
        .map(([n, ch]) => bytesOf(ch.repeat(Math.ceil(n / Buffer.byteLength(ch))))),
    },
  );
}

const U32_EDGES = [
  0n,
  1n,
  80n,
  8080n,
  65_535n,
  65_536n,
  2n ** 31n,
  2n ** 32n - 1n,
  2n ** 32n,
  2n ** 40n,
  2n ** 64n - 1n,
];
const I64_EDGES = [
  0n,
  1n,
  -1n,
  1_000_000_000n,
  BigInt(Number.MAX_SAFE_INTEGER) + 2n,
  2n ** 63n - 1n,
  -(2n ** 63n),
  2n ** 64n - 1n,
];

function numberWire(edges: readonly bigint[]): fc.Arbitrary<bigint> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...edges) },
    { weight: 2, arbitrary: fc.bigInt({ min: 0n, max: 70_000n }) },
    { weight: 1, arbitrary: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 64n - 1n }) },
  );
}

const MAP_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "svc.io/external",
  "k",
  "",
];

/** A map entry message (key = 1, value = 2). */
function mapEntry(valueType: "string" | "uint64", pool: readonly string[]): fc.Arbitrary<Wire> {
  const key = fc.oneof(fc.constantFrom(...MAP_KEYS, ...pool).map(bytesOf), stringWire(pool));
  const value: fc.Arbitrary<Wire> =
    valueType === "string"
      ? fc.oneof(stringWire(["true", "false", "v"]), fc.constant(bytesOf("true"))).map((b) => ({
          wire: "len" as const,
          bytes: b,
        }))
      : numberWire(I64_EDGES).map((v) => ({ wire: "varint" as const, value: v }));
  return fc.tuple(key, fc.option(value, { freq: 8 })).map(([k, v]) => ({
    wire: "len" as const,
    bytes: encodeFields([[1, { wire: "len", bytes: k }], ...(v === null ? [] : [[2, v] as const])]),
  }));
}

/** The wire values one field of a schema may get (a list: a map or repeated field repeats, a singular one may). */
function fieldArb(type: FieldType, pool: readonly string[]): fc.Arbitrary<Wire[]> {
  const str = stringWire(pool).map((bytes): Wire => ({ wire: "len", bytes }));
  let one: fc.Arbitrary<Wire>;
  let max = 2; // a singular field sent twice: the last one wins
  if (type === "string") one = str;
  else if (type === "uint32") one = numberWire(U32_EDGES).map((value): Wire => ({ wire: "varint", value }));
  else if (type === "int64" || type === "uint64")
    one = numberWire(I64_EDGES).map((value): Wire => ({ wire: "varint", value }));
  else if (type === "bool")
    one = fc.constantFrom(0n, 1n, 2n, 2n ** 40n).map((value): Wire => ({ wire: "varint", value }));
  else if (type === "double")
    one = fc
      .oneof(
        fc.constantFrom(0, 0.5, 1, 1.5, -1, Number.NaN, Number.POSITIVE_INFINITY, 5e-324, -0),
        fc.double(),
      )
      .map((v): Wire => {
        const bytes = Buffer.alloc(8);
        bytes.writeDoubleLE(v);
        return { wire: "fixed64", bytes };
      });
  else if ("repeatedMessage" in type) {
    const schema = type.repeatedMessage;
    const inner = Object.entries(schema).map(([no, [, t, p]]) =>
      fc.option(
        fieldArb(t, p ?? []).map((ws) => ws.map((w) => [Number(no), w] as const)),
        { freq: 5 },
      ),
    );
    one = fc
      .tuple(...inner)
      .map(
        (present): Wire => ({ wire: "len", bytes: encodeFields(present.filter((x) => x !== null).flat()) }),
      );
    max = 40;
  } else if ("map" in type) {
    one = mapEntry(type.map[1], pool);
    max = 40;
  } else {
    one = str;
    max = 40;
  }
  // now and then the wrong wire type for the field (skipped by the decoder)
  const wrong: fc.Arbitrary<Wire> =
    type === "string" || typeof type === "object"
      ? fc.constant({ wire: "varint", value: 7n })
      : fc.constant({ wire: "len", bytes: Buffer.from("x") });
  return fc.array(fc.oneof({ weight: 12, arbitrary: one }, { weight: 1, arbitrary: wrong }), {
    minLength: 1,
    maxLength: max,
  });
}

/** One generated request. `bytes` go on the wire as they are. */
export interface GrpcCase {
  kind: "shaped" | "valid" | "truncated" | "random" | "oversized";
  bytes: Buffer;
}

/** Largest message the server takes (grpc-js's default receive limit); larger ones are RESOURCE_EXHAUSTED. */
export const MAX_RECEIVE_BYTES = 4 * 1024 * 1024;

/** A case as fast-check reports it: its kind, size and first bytes (a counterexample may be megabytes). */
function withSummary(c: GrpcCase): GrpcCase {
  const head = c.bytes.subarray(0, 96).toString("hex");
  return Object.assign(c, {
    [fc.toStringMethod]: () => `${c.kind} ${c.bytes.length} B ${head}${c.bytes.length > 96 ? "…" : ""}`,
  });
}

/** Over grpc-js's default 4 MiB receive limit (the server answers RESOURCE_EXHAUSTED). */
const OVERSIZED = encodeFields([[1, { wire: "len", bytes: Buffer.alloc(MAX_RECEIVE_BYTES + 64, 0x61) }]]);

/**
 * Requests of one message type: shaped (each field dropped, given, or repeated; unknown fields), valid ones from
 * `valid` (encoded by the generated code), shaped ones truncated, random bytes (often not protobuf), oversized.
 */
export function requestBytesArb(schema: MessageSchema, valid: fc.Arbitrary<Buffer>): fc.Arbitrary<GrpcCase> {
  const fields = Object.entries(schema).map(([no, [, type, pool]]) =>
    fc.option(
      fieldArb(type, pool ?? []).map((ws) => ws.map((w) => [Number(no), w] as const)),
      { freq: 5 },
    ),
  );
  const unknown = fc.option(
    fc.constantFrom<readonly [number, Wire]>(
      [99, { wire: "varint", value: 1n }],
      [15, { wire: "len", bytes: Buffer.from("zz") }],
      [536_870_911, { wire: "varint", value: 0n }],
    ),
    { freq: 6 },
  );
  const shaped = fc.tuple(fc.tuple(...fields), unknown, fc.boolean()).map(([present, extra, shuffle]) => {
    const list = present.filter((x) => x !== null).flat();
    if (extra !== null) list.push(extra);
    if (shuffle) list.reverse();
    return encodeFields(list);
  });
  return fc
    .oneof(
      { weight: 12, arbitrary: shaped.map((bytes): GrpcCase => ({ kind: "shaped", bytes })) },
      { weight: 4, arbitrary: valid.map((bytes): GrpcCase => ({ kind: "valid", bytes })) },
      {
        weight: 2,
        arbitrary: fc
          .tuple(shaped, fc.nat())
          .filter(([b]) => b.length > 1)
          .map(([b, n]): GrpcCase => ({ kind: "truncated", bytes: b.subarray(0, 1 + (n % (b.length - 1))) })),
      },
      {
        weight: 2,
        arbitrary: fc
          .oneof(
            fc.uint8Array({ maxLength: 64 }),
            // a wire type the format does not have (6, 7), or a length running past the end
            fc.constantFrom(
              [0x0e],
              [0x0f, 0x01],
              [0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f],
              [0x08],
              [0x0a, 0x05, 0x61],
              [0x00],
            ),
          )
          .map((b): GrpcCase => ({ kind: "random", bytes: Buffer.from(b) })),
      },
      { weight: 1, arbitrary: fc.constant(0).map((): GrpcCase => ({ kind: "oversized", bytes: OVERSIZED })) },
    )
    .map(withSummary);
}
