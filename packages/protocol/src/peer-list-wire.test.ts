import assert from "node:assert/strict";
import { test } from "node:test";
import * as protoLoader from "@grpc/proto-loader";
import { type PeerList, type PeerMessage, PROTO_LOADER_OPTIONS, PROTO_PATH } from "./grpc.ts";
import { encodePeerList, withPeerWire } from "./peer-list-wire.ts";
import { applyPeerList } from "./peer-message.ts";

// The protobuf.js codec as proto-loader builds it, to compare the fast encoder against.
const def = protoLoader.loadSync(PROTO_PATH, PROTO_LOADER_OPTIONS);
const service = def["svc.v1.AgentService"] as unknown as Record<
  string,
  { responseSerialize: (v: PeerList) => Buffer; responseDeserialize: (b: Buffer) => PeerList }
>;
const watch = service.WatchPeers;
if (watch === undefined) throw new Error("WatchPeers missing");
const { responseSerialize: reference, responseDeserialize: decode } = watch;

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

test("the fast PeerList encoder decodes to what protobuf.js encodes, with or without cached peers", () => {
  for (const list of cases) {
    const want = decode(reference(list));
    assert.deepEqual(decode(encodePeerList(list)), want);
    const wired = { ...list, peers: list.peers.map((p) => withPeerWire({ ...p })) };
    assert.deepEqual(decode(encodePeerList(wired)), want);
    assert.deepEqual(wired.peers, list.peers, "the cached encoding is invisible to comparisons");
  }
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
