// The fault kinds issue 3 adds to `svc lab fault` (mtu, blackhole, hoploss) on the bridge lab's namespaces.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, test } from "node:test";
import { needsRoot, skipUnless } from "../../../../test/helpers/env.ts";
import { applyFault, type FaultEndpoint, faultRules, healAll, parseFault } from "../faults.ts";
import { addNode, createBridge, destroyNetwork, type LabNetworkNode } from "../netns.ts";

const nodes = new Map<string, FaultEndpoint>([
  ["node-1", { namespace: "svc1-node-1", address: "198.18.1.11", tcpPort: 8080, udpPort: 9090 }],
  ["node-2", { namespace: "svc1-node-2", address: "198.18.1.12", tcpPort: 8080, udpPort: 9090 }],
]);

test("mtu, blackhole and hoploss words parse and become the documented rules", () => {
  assert.deepEqual(parseFault(["mtu", "node-2", "1400"]), { kind: "mtu", node: "node-2", bytes: 1400 });
  assert.deepEqual(parseFault(["blackhole", "node-1", "node-2"]), {
    kind: "blackhole",
    from: "node-1",
    to: "node-2",
    bytes: 1400,
  });
  assert.deepEqual(parseFault(["hoploss", "node-2", "30"]), { kind: "hoploss", node: "node-2", percent: 30 });
  assert.throws(() => parseFault(["mtu", "node-2", "100"]), /usage: mtu NODE BYTES/);
  assert.throws(() => parseFault(["blackhole", "node-1"]), /usage: blackhole FROM TO/);
  assert.throws(() => parseFault(["hoploss", "node-2", "x"]), /usage: hoploss NODE PERCENT/);
  const bh = faultRules({ kind: "blackhole", from: "node-1", to: "node-2", bytes: 1300 }, nodes);
  assert.deepEqual([...bh], [["svc1-node-2", ["ip daddr 198.18.1.11 meta length > 1300 drop"]]]);
  const hl = faultRules({ kind: "hoploss", node: "node-2", percent: 30 }, nodes);
  assert.deepEqual(hl.get("svc1-node-2"), [
    "icmp type { time-exceeded, echo-reply } numgen random mod 10000 < 3000 drop",
  ]);
  assert.deepEqual([...faultRules({ kind: "mtu", node: "node-1", bytes: 1400 }, nodes)], []);
  assert.throws(() => faultRules({ kind: "mtu", node: "node-9", bytes: 1400 }, nodes), /unknown lab node/);
});

const opts = skipUnless(needsRoot());
let index = 0;
const lab: LabNetworkNode[] = [];
const endpoints = new Map<string, FaultEndpoint>();

/** ping from a node; resolves the replies received and the whole output. */
function ping(
  from: LabNetworkNode,
  to: string,
  size: number,
  count = 2,
): Promise<{ received: number; out: string }> {
  const args = ["netns", "exec", from.namespace, "ping", "-n", "-c", String(count), "-i", "0.01", "-W", "1"];
  return new Promise((resolve) => {
    execFile("ip", [...args, "-M", "do", "-s", String(size), to], (_err, stdout, stderr) => {
      const m = /(\d+) received/.exec(stdout);
      resolve({ received: Number(m?.[1] ?? 0), out: stdout + stderr });
    });
  });
}

before(async () => {
  if (opts.skip) return;
  index = await createBridge();
  for (const i of [1, 2]) {
    const n = await addNode(index, `node-${i}`, i);
    lab.push(n);
    endpoints.set(n.name, { namespace: n.namespace, address: n.address, tcpPort: 8080, udpPort: 9090 });
  }
});
after(async () => {
  if (index > 0)
    await destroyNetwork(
      index,
      lab.map((n) => n.namespace),
    );
});

test(
  "mtu on a node: big frames towards it vanish, its own big sends fail locally; heal restores 1500",
  opts,
  async () => {
    const [n1, n2] = lab as [LabNetworkNode, LabNetworkNode];
    await applyFault(parseFault(["mtu", "node-2", "1400"]), endpoints);
    assert.equal((await ping(n1, n2.address, 1450)).received, 0);
    assert.equal((await ping(n1, n2.address, 1300)).received, 2);
    assert.match((await ping(n2, n1.address, 1450, 1)).out, /too long|mtu=1400|mtu = 1400/i);
    await healAll(lab.map((n) => n.namespace));
    assert.equal((await ping(n1, n2.address, 1450)).received, 2);
  },
);

test("blackhole: big replies on the path vanish without ICMP while small ones cross", opts, async () => {
  const [n1, n2] = lab as [LabNetworkNode, LabNetworkNode];
  await applyFault(parseFault(["blackhole", "node-1", "node-2", "1400"]), endpoints);
  const big = await ping(n1, n2.address, 1400);
  assert.equal(big.received, 0, big.out);
  assert.doesNotMatch(big.out, /Frag needed|mtu/i);
  assert.equal((await ping(n1, n2.address, 1000)).received, 2);
  await healAll(lab.map((n) => n.namespace));
  assert.equal((await ping(n1, n2.address, 1400)).received, 2);
});

test("hoploss 100 on a node silences its echo replies; heal brings them back", opts, async () => {
  const [n1, n2] = lab as [LabNetworkNode, LabNetworkNode];
  await applyFault(parseFault(["hoploss", "node-2", "100"]), endpoints);
  assert.equal((await ping(n1, n2.address, 56)).received, 0);
  await healAll(lab.map((n) => n.namespace));
  assert.equal((await ping(n1, n2.address, 56)).received, 2);
});
