import assert from "node:assert/strict";
import { test } from "node:test";
import {
  createFileRegistry,
  type DescField,
  type DescMessage,
  fromBinary,
  ScalarType,
} from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { buf } from "./codegen.ts";
import { type PeerList, type PeerMessage, proto } from "./grpc.ts";
import { encodePeerList, peerWireSize, withPeerWire } from "./peer-list-wire.ts";
import { applyPeerList } from "./peer-message.ts";

// The schema, read from svc.proto itself (not a hand list): a field added to PeerList, Peer or anything they
// reach must be encoded by the fast encoder too, else the round trips below lose it.
const registry = createFileRegistry(
  fromBinary(FileDescriptorSetSchema, buf(["build", "packages/protocol/proto", "-o", "-"])),
);
const peerListDesc = registry.getMessage("svc.v1.PeerList");
if (peerListDesc === undefined) throw new Error("svc.v1.PeerList missing from svc.proto");

type Msg = Record<string, unknown>;

function zeroScalar(t: ScalarType): unknown {
  if (t === ScalarType.STRING) return "";
  if (t === ScalarType.BOOL) return false;
  if (t === ScalarType.BYTES) return new Uint8Array(0);
  return 0;
}

/** A value other than the zero value; strings long enough to need a two-byte length, and not ASCII. */
function sampleScalar(t: ScalarType, name: string): unknown {
  switch (t) {
    case ScalarType.STRING:
      return `${name}-ü-ノード-😀-${"x".repeat(120)}`;
    case ScalarType.BOOL:
      return true;
    case ScalarType.BYTES:
      return new Uint8Array([1, 2, 3]);
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return 1.5;
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
    case ScalarType.SINT64:
      return 2 ** 40 + 7;
    default:
      return 65535 * 3;
  }
}

function enumSample(field: DescField): unknown {
  const e = field.enum;
  return e?.values[e.values.length - 1]?.name;
}

/** A message as the generated decoder returns it when nothing is set. */
function zero(desc: DescMessage): Msg {
  const m: Msg = {};
  for (const f of desc.fields) {
    if (f.fieldKind === "scalar") m[f.name] = zeroScalar(f.scalar);
    else if (f.fieldKind === "list") m[f.name] = [];
    else if (f.fieldKind === "map") m[f.name] = {};
    else if (f.fieldKind === "enum") m[f.name] = f.enum.values[0]?.name;
    else m[f.name] = undefined;
  }
  return m;
}

/** A value for `f` other than its zero value (lists and maps also hold a zero-valued element). */
function sample(f: DescField): unknown {
  switch (f.fieldKind) {
    case "scalar":
      return sampleScalar(f.scalar, f.name);
    case "enum":
      return enumSample(f);
    case "message":
      return full(f.message);
    case "list":
      if (f.listKind === "message") return [full(f.message), zero(f.message)];
      if (f.listKind === "enum")
        return [f.enum.values[f.enum.values.length - 1]?.name, f.enum.values[0]?.name];
      return [sampleScalar(f.scalar, f.name), zeroScalar(f.scalar)];
    case "map": {
      const key = (suffix: string): string =>
        f.mapKey === ScalarType.STRING ? `${f.name}.${suffix}/ü` : "7";
      const value =
        f.mapKind === "message"
          ? full(f.message)
          : f.mapKind === "enum"
            ? enumSample(f)
            : sampleScalar(f.scalar, f.name);
      const empty =
        f.mapKind === "message"
          ? zero(f.message)
          : f.mapKind === "enum"
            ? f.enum.values[0]?.name
            : zeroScalar(f.scalar);
      return f.mapKey === ScalarType.STRING ? { [key("a")]: value, "": empty } : { [key("a")]: value };
    }
  }
}

/** Every field of `desc` set. */
function full(desc: DescMessage): Msg {
  const m = zero(desc);
  for (const f of desc.fields) m[f.name] = sample(f);
  return m;
}

/**
 * One message per field of `desc`, with only that field set, recursively into message-typed fields (each
 * variant of the child in turn), plus one with every field set. Labels name the field path.
 */
function variants(desc: DescMessage, label: string): [string, Msg][] {
  const out: [string, Msg][] = [
    [`${label} (every field)`, full(desc)],
    [`${label} (no field)`, zero(desc)],
  ];
  for (const f of desc.fields) {
    const path = `${label}.${f.name}`;
    out.push([path, { ...zero(desc), [f.name]: sample(f) }]);
    const child =
      f.fieldKind === "message" || (f.fieldKind === "list" && f.listKind === "message")
        ? f.message
        : undefined;
    if (child === undefined) continue;
    for (const [childPath, v] of variants(child, path)) {
      out.push([childPath, { ...zero(desc), [f.name]: f.fieldKind === "list" ? [v] : v }]);
    }
  }
  return out;
}

function checkRoundTrip(label: string, list: PeerList): void {
  const want = Buffer.from(proto.PeerList.encode(proto.PeerList.fromPartial(list)).finish());
  const fast = encodePeerList(list);
  assert.deepEqual(proto.PeerList.decode(fast), proto.PeerList.decode(want), `${label}: decoded value`);
  assert.deepEqual(fast, want, `${label}: wire bytes`);
  const wired = { ...list, peers: list.peers.map((p) => withPeerWire({ ...p })) };
  assert.deepEqual(encodePeerList(wired), want, `${label}: wire bytes with cached peers`);
  assert.deepEqual(wired.peers, list.peers, `${label}: the cached encoding is invisible to comparisons`);
}

test("the fast PeerList encoder round-trips every field of every message reachable from PeerList", () => {
  const all = variants(peerListDesc, "PeerList");
  // PeerList's own fields, Peer's fields through `peers`, and Peer's map entries
  assert.ok(all.length >= peerListDesc.fields.length + 8, `only ${all.length} variants`);
  for (const [label, value] of all) {
    checkRoundTrip(label, value as unknown as PeerList);
    assert.deepEqual(
      proto.PeerList.decode(encodePeerList(value as unknown as PeerList)),
      value,
      `${label}: the generated decoder gives back every field`,
    );
  }
});

function peer(i: number, over: Partial<PeerMessage> = {}): PeerMessage {
  return {
    agent_id: `agent-${i}`,
    node_name: `node-${i}`,
    address: i % 2 ? "198.18.0.1" : "fd00:198:18::1",
    zone: i % 3 ? `zone-${i % 3}` : "",
    labels: i % 4 ? { "topology.kubernetes.io/zone": `z${i}`, empty: "" } : {},
    capabilities: i % 5 ? ["plane:tcp", "external-checks"] : [],
    http_port: i % 2 ? 8080 : 0,
    udp_port: i % 3 ? 65535 : 0,
    ...over,
  };
}

const cases: PeerList[] = [
  { peers: [], sparse: false, planned: [], zone: "" },
  { peers: [peer(1), peer(2), peer(3), peer(4), peer(5)], sparse: false, planned: [], zone: "z1" },
  {
    peers: [peer(6, { node_name: "ünïcødé-ノード-😀", labels: { long: "x".repeat(300) } }), peer(7)],
    sparse: true,
    planned: ["node-6", "node-7"],
    zone: "zone-ü",
    delta: true,
    removed: ["agent-1", "agent-2", ""],
  },
  {
    peers: [peer(8, { agent_id: "a".repeat(200) })],
    sparse: false,
    planned: [],
    zone: "",
    delta: false,
    removed: [],
  },
];

test("the fast PeerList encoder writes what the generated encoder writes; omitted delta/removed read as a full list", () => {
  for (const [i, list] of cases.entries()) checkRoundTrip(`case ${i}`, list);
  const decoded = proto.PeerList.decode(
    encodePeerList({ peers: [peer(1)], sparse: false, planned: [], zone: "" }),
  );
  assert.equal(decoded.delta, false);
  assert.deepEqual(decoded.removed, []);
});

test("applyPeerList: a full list replaces, a delta upserts and removes, self is never kept", () => {
  const held = new Map<string, PeerMessage>();
  applyPeerList(
    held,
    { peers: [peer(1), peer(2), peer(3)], sparse: false, planned: [], zone: "" },
    "agent-3",
  );
  assert.deepEqual([...held.keys()], ["agent-1", "agent-2"]);
  const moved = peer(2, { address: "198.18.0.9" });
  applyPeerList(held, {
    peers: [moved, peer(4)],
    removed: ["agent-1", "agent-9"],
    delta: true,
    sparse: false,
    planned: [],
    zone: "",
  });
  assert.deepEqual([...held.values()], [moved, peer(4)]);
  applyPeerList(held, { peers: [peer(5)], sparse: false, planned: [], zone: "", delta: false, removed: [] });
  assert.deepEqual([...held.keys()], ["agent-5"]);
});

test("peerWireSize is each peer's exact share of an encoded PeerList", () => {
  const peer = (i: number, label: string): PeerMessage => ({
    agent_id: `id-${i}`,
    node_name: `node-${i}`,
    address: "198.18.0.1",
    zone: "z",
    labels: { l: label },
    capabilities: ["plane:tcp"],
    http_port: 8080,
    udp_port: 0,
  });
  const empty: PeerList = { peers: [], sparse: false, planned: [], zone: "z" };
  const base = encodePeerList(empty).length;
  // sizes around the one- and two-byte length prefixes (127/128) and a three-byte one
  for (const n of [0, 90, 100, 110, 200, 20_000]) {
    const peers = [peer(1, "v".repeat(n)), withPeerWire(peer(2, "w".repeat(n)))];
    const total = encodePeerList({ ...empty, peers }).length;
    assert.equal(base + peers.reduce((sum, p) => sum + peerWireSize(p), 0), total, `label of ${n} bytes`);
  }
});
