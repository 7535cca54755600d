/**
 * Node, zone and link faults: their words and rules, then each one on a real bridge with four namespaces in two
 * zones, judged by what crosses (iputils ping; a tcp connect and a udp echo by python3 inside the namespaces),
 * including what must still cross (the other direction, other protocols, the bridge address = control plane).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { needsBinary, needsRoot, skipUnless } from "../../../test/helpers/env.ts";
import { applyFault, type FaultEndpoint, healAll, parseFault } from "./faults.ts";
import { LabFaults } from "./lab-faults.ts";
import { addNode, bridgeAddress, createBridge, destroyNetwork, type LabNetworkNode } from "./netns.ts";
import { nodeFaultRules } from "./node-faults.ts";

const four = new Map<string, FaultEndpoint>(
  [1, 2, 3, 4].map((i) => [
    `node-${i}`,
    {
      namespace: `svc1-node-${i}`,
      address: `198.18.1.${10 + i}`,
      tcpPort: 8080,
      udpPort: 9090,
      zone: i % 2 === 1 ? "zone-a" : "zone-b",
    },
  ]),
);

describe("words and rules", () => {
  test("each node fault parses from its words, with its defaults", () => {
    assert.deepEqual(parseFault(["isolate", "node-1"]), {
      kind: "isolate",
      node: "node-1",
      direction: "both",
    });
    assert.deepEqual(parseFault(["isolate", "node-1", "in"]), {
      kind: "isolate",
      node: "node-1",
      direction: "in",
    });
    assert.deepEqual(parseFault(["down", "node-2"]), { kind: "down", node: "node-2", what: "agent" });
    assert.deepEqual(parseFault(["down", "node-2", "link"]), { kind: "down", node: "node-2", what: "link" });
    assert.deepEqual(parseFault(["zones", "zone-a", "zone-b"]), { kind: "zones", a: "zone-a", b: "zone-b" });
    assert.deepEqual(parseFault(["block", "node-3", "udp"]), {
      kind: "block",
      node: "node-3",
      protocol: "udp",
      direction: "in",
    });
    assert.deepEqual(parseFault(["flap", "node-1", "node-2"]), {
      kind: "flap",
      a: "node-1",
      b: "node-2",
      periodSeconds: 20,
    });
    assert.deepEqual(parseFault(["loss", "node-4", "15"]), { kind: "linkloss", node: "node-4", percent: 15 });
    assert.equal(parseFault(["loss", "node-1", "node-2", "15"]).kind, "loss", "four words: the pair's loss");
  });

  test("bad words are refused with the usage", () => {
    assert.throws(() => parseFault(["isolate"]), /usage: isolate NODE \[in\|out\|both\]/);
    assert.throws(() => parseFault(["isolate", "node-1", "sideways"]), /usage: isolate/);
    assert.throws(() => parseFault(["down", "node-1", "disk"]), /usage: down NODE \[agent\|link\]/);
    assert.throws(() => parseFault(["zones", "zone-a"]), /usage: zones ZONE ZONE/);
    assert.throws(() => parseFault(["block", "node-1", "sctp"]), /usage: block NODE tcp\|udp\|icmp/);
    assert.throws(() => parseFault(["flap", "node-1", "node-2", "1"]), /flap PERIOD must be a number 2-3600/);
    assert.throws(() => parseFault(["loss", "node-1", "101"]), /loss PERCENT must be a number 0-100/);
  });

  test("cut-offs are stateful and name the peers only; zones cut every pair between them", () => {
    const iso = nodeFaultRules({ kind: "isolate", node: "node-1", direction: "both" }, four);
    const peers = "{ 198.18.1.12, 198.18.1.13, 198.18.1.14 }";
    assert.deepEqual(iso.input.get("svc1-node-1"), [`ip saddr ${peers} ct state new drop`]);
    assert.deepEqual(iso.output.get("svc1-node-1"), [`ip daddr ${peers} ct state new drop`]);
    const zones = nodeFaultRules({ kind: "zones", a: "zone-a", b: "zone-b" }, four);
    assert.deepEqual(zones.output.get("svc1-node-1"), ["ip daddr { 198.18.1.12, 198.18.1.14 } drop"]);
    assert.deepEqual(zones.output.get("svc1-node-2"), ["ip daddr { 198.18.1.11, 198.18.1.13 } drop"]);
    assert.throws(
      () => nodeFaultRules({ kind: "zones", a: "zone-a", b: "zone-x" }, four),
      /no lab node in zone "zone-x"/,
    );
    const blockIn = nodeFaultRules({ kind: "block", node: "node-2", protocol: "tcp", direction: "in" }, four);
    assert.deepEqual(blockIn.input.get("svc1-node-2"), [
      "ip saddr { 198.18.1.11, 198.18.1.13, 198.18.1.14 } tcp dport 8080 drop",
    ]);
    assert.throws(
      () => nodeFaultRules({ kind: "isolate", node: "node-9", direction: "in" }, four),
      /unknown lab node "node-9"/,
    );
  });
});

const opts = skipUnless(needsRoot() ?? needsBinary("/usr/bin/python3"));
let index = 0;
const lab: LabNetworkNode[] = [];
const endpoints = new Map<string, FaultEndpoint>();
const listeners: ReturnType<typeof execFile>[] = [];

/** python3 in a namespace: a tcp listener on 8080 and a udp echo on 9090 of the node's address. */
const SERVE = `
import socket, threading
a = __import__("sys").argv[1]
t = socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); t.bind((a, 8080)); t.listen(64)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind((a, 9090))
def tcp():
    while True:
        c, _ = t.accept(); c.close()
threading.Thread(target=tcp, daemon=True).start()
while True:
    d, p = u.recvfrom(2048); u.sendto(d, p)
`;
/** python3 in a namespace: exit 0 when a tcp connect or a udp echo to the address succeeds within 1 s. */
const PROBE = `
import socket, sys
kind, a = sys.argv[1], sys.argv[2]
if kind == "tcp":
    s = socket.create_connection((a, 8080), timeout=1); s.close()
else:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(1); s.sendto(b"x", (a, 9090)); s.recvfrom(64)
`;

function inNs(ns: string, args: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    execFile("ip", ["netns", "exec", ns, ...args], { timeout: 5000 }, (err) => resolve(!err));
  });
}
const node = (i: number) => lab[i - 1] as LabNetworkNode;
const ping = (from: number, to: string) =>
  inNs(node(from).namespace, ["ping", "-n", "-c", "1", "-W", "1", to]);
const tcp = (from: number, to: number) =>
  inNs(node(from).namespace, ["python3", "-c", PROBE, "tcp", node(to).address]);
const udp = (from: number, to: number) =>
  inNs(node(from).namespace, ["python3", "-c", PROBE, "udp", node(to).address]);
const heal = () => healAll(lab.map((n) => n.namespace));

before(async () => {
  if (opts.skip) return;
  index = await createBridge();
  for (const i of [1, 2, 3, 4]) {
    const n = await addNode(index, `node-${i}`, i);
    lab.push(n);
    endpoints.set(n.name, {
      namespace: n.namespace,
      address: n.address,
      tcpPort: 8080,
      udpPort: 9090,
      zone: i % 2 === 1 ? "zone-a" : "zone-b",
    });
    listeners.push(execFile("ip", ["netns", "exec", n.namespace, "python3", "-c", SERVE, n.address]));
  }
  // the listeners are up once a connect from a neighbour succeeds
  for (const i of [1, 2, 3, 4]) {
    const deadline = Date.now() + 20_000;
    while (!(await tcp(i === 1 ? 2 : 1, i))) {
      if (Date.now() > deadline) throw new Error(`node-${i}'s python3 listener did not come up`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
});
after(async () => {
  for (const l of listeners) l.kill("SIGKILL");
  if (index > 0)
    await destroyNetwork(
      index,
      lab.map((n) => n.namespace),
    );
});

describe("on a real bridge", () => {
  test(
    "isolate in: peers cannot start flows to the node, its own flows to them still work",
    opts,
    async () => {
      await applyFault(parseFault(["isolate", "node-1", "in"]), endpoints);
      assert.equal(await ping(2, node(1).address), false, "ping node-2 -> node-1");
      assert.equal(await tcp(2, 1), false, "tcp node-2 -> node-1");
      assert.equal(await udp(3, 1), false, "udp node-3 -> node-1");
      assert.equal(await ping(1, node(2).address), true, "ping node-1 -> node-2 (answers come back in)");
      assert.equal(await tcp(1, 2), true, "tcp node-1 -> node-2");
      assert.equal(await udp(1, 3), true, "udp node-1 -> node-3");
      assert.equal(await ping(1, bridgeAddress(index)), true, "the control plane (bridge) still reaches it");
      await heal();
      assert.equal(await tcp(2, 1), true, "healed");
    },
  );

  test("isolate out: the node cannot start flows, its peers still reach it", opts, async () => {
    await applyFault(parseFault(["isolate", "node-1", "out"]), endpoints);
    assert.equal(await tcp(1, 2), false);
    assert.equal(await ping(1, node(3).address), false);
    assert.equal(await tcp(2, 1), true);
    assert.equal(await udp(4, 1), true);
    await heal();
  });

  test("zones: every pair between the zones fails, inside each zone all is fine", opts, async () => {
    await applyFault(parseFault(["zones", "zone-a", "zone-b"]), endpoints);
    assert.equal(await tcp(1, 2), false, "zone-a -> zone-b");
    assert.equal(await ping(4, node(3).address), false, "zone-b -> zone-a");
    assert.equal(await tcp(1, 3), true, "inside zone-a");
    assert.equal(await udp(2, 4), true, "inside zone-b");
    await heal();
  });

  test("block udp in: only udp towards the node fails", opts, async () => {
    await applyFault(parseFault(["block", "node-2", "udp", "in"]), endpoints);
    assert.equal(await udp(1, 2), false);
    assert.equal(await tcp(1, 2), true);
    assert.equal(await ping(1, node(2).address), true);
    assert.equal(await udp(2, 1), true, "the node's own udp probes still get their echoes");
    await heal();
  });

  test("block tcp out: only the node's own tcp probes fail", opts, async () => {
    await applyFault(parseFault(["block", "node-2", "tcp", "out"]), endpoints);
    assert.equal(await tcp(2, 1), false);
    assert.equal(await tcp(1, 2), true);
    assert.equal(await udp(2, 1), true);
    await heal();
  });

  test("loss 100 on a node's link: its peers' traffic both ways, not the bridge's", opts, async () => {
    await applyFault(parseFault(["loss", "node-3", "100"]), endpoints);
    assert.equal(await ping(1, node(3).address), false);
    assert.equal(await ping(3, node(4).address), false);
    assert.equal(await ping(3, bridgeAddress(index)), true);
    await heal();
    assert.equal(await ping(1, node(3).address), true);
  });

  test("down link: nothing reaches the node, bridge included; heal brings the link back", opts, async () => {
    await applyFault(parseFault(["down", "node-4", "link"]), endpoints);
    assert.equal(await ping(1, node(4).address), false);
    assert.equal(await ping(4, bridgeAddress(index)), false);
    await heal();
    assert.equal(await ping(1, node(4).address), true);
  });

  test(
    "flap: the link goes down and up by itself until healed; status lists it meanwhile",
    opts,
    async () => {
      const faults = new LabFaults({
        endpoints: () => endpoints,
        stopAgent: async () => assert.fail("no agent is stopped by a flap"),
        startAgent: async () => assert.fail("no agent is started by a flap"),
        changed: () => {},
      });
      await faults.inject(parseFault(["flap", "node-1", "node-3", "4"]));
      assert.deepEqual(
        faults.stateEntries().map((e) => e.words),
        ["flap node-1 node-3 4"],
      );
      const until = async (want: boolean) => {
        const deadline = Date.now() + 15_000;
        for (;;) {
          const got = await ping(1, node(3).address);
          if (got === want) return;
          if (Date.now() > deadline) assert.fail(`the link never went ${want ? "up" : "down"} within 15 s`);
        }
      };
      await until(false);
      await until(true);
      await until(false);
      await faults.heal();
      assert.deepEqual(faults.stateEntries(), []);
      for (let i = 0; i < 3; i++) assert.equal(await ping(1, node(3).address), true, "healed: stays up");
    },
  );
});
