import assert from "node:assert/strict";
import { test } from "node:test";
import {
  Controller,
  peerMessage,
  RawAgentClient,
  registerRequest,
  testConfig,
  waitUntil,
} from "@svc/controller";
import { applyPeerList, type Peer, type PeerList, type PeerMessage, peerFromMessage } from "@svc/protocol";
import { RegistrationClient } from "./client.ts";

const version = { version: "2.5.0", commit: "abc" };
const hosts = { grpcHost: "127.0.0.1", httpHost: "127.0.0.1" };

/** The peers the controller holds for `self`, as the probe side sees them, sorted like the client emits them. */
function expected(c: Controller, self: string): Peer[] {
  return c.registry
    .list()
    .filter((a) => a.id !== self)
    .map((a) => peerFromMessage(peerMessage(a)));
}

test("deltas applied by the real client give exactly the controller's set after random join/leave/update", async () => {
  const c = new Controller({
    config: testConfig({ agentTtl: 600_000 }),
    version,
    ...hosts,
    peerDebounceMs: 15,
  });
  await c.start();
  const raw = new RawAgentClient(c.grpcPort);
  const agent = new RegistrationClient({
    controllerAddress: `127.0.0.1:${c.grpcPort}`,
    nodeName: "me",
    agentId: "me",
    advertiseAddress: "198.18.0.2",
    zone: "z0",
    labels: {},
    capabilities: ["plane:tcp"],
    ports: { httpPort: 8080, udpPort: 9090, metricsPort: 9091 },
    version: "2.5.0",
    heartbeatIntervalMs: 200,
  });
  let latest: Peer[] = [];
  let emitted = 0;
  agent.onPeers((peers) => {
    latest = peers;
    emitted++;
  });
  // An agent from before deltas: never opts in, must only ever see full lists.
  await raw.register(registerRequest({ node_name: "old", agent_id: "old", advertise_address: "198.18.0.3" }));
  const old = raw.watch("old");
  // A second incremental watcher, read raw, to prove the controller really sends deltas.
  const incLists: PeerList[] = [];
  const incHeld = new Map<string, PeerMessage>();
  const inc = raw.client.WatchPeers({ agent_id: "old", incremental: true });
  inc.on("data", (l: PeerList) => {
    incLists.push(l);
    applyPeerList(incHeld, l, "old");
  });
  inc.on("error", () => {});
  try {
    agent.start();
    await waitUntil(() => agent.ready(), "first peer list");
    for (const seed of [1, 2, 3]) {
      const rng = createPrng(seed);
      const live = new Set<string>();
      let next = 0;
      for (let step = 0; step < 20; step++) {
        const ops = rng.int(1, 4);
        for (let o = 0; o < ops; o++) {
          const roll = rng.next();
          const ids = [...live];
          if (roll < 0.45 || ids.length === 0) {
            const name = `s${seed}-n${next++}`;
            live.add(name);
            await raw.register(
              registerRequest({
                node_name: name,
                agent_id: name,
                advertise_address: `198.18.1.${rng.int(1, 250)}`,
                zone: `z${rng.int(0, 2)}`,
              }),
            );
          } else if (roll < 0.7) {
            const name = rng.pick(ids);
            live.delete(name);
            await raw.deregister(name);
          } else {
            // update (address, zone, labels, ports) or an identical re-registration
            const name = rng.pick(ids);
            const current = c.registry.get(name);
            assert.ok(current);
            const change = rng.int(0, 3);
            await raw.register(
              registerRequest({
                node_name: name,
                agent_id: name,
                advertise_address: change === 0 ? `198.18.2.${rng.int(1, 250)}` : current.address,
                zone: change === 1 ? `z${rng.int(0, 2)}` : current.zone,
                labels: change === 2 ? { rack: `r${rng.int(0, 9)}` } : current.labels,
                http_port: change === 3 ? rng.int(1024, 60000) : current.httpPort,
              }),
            );
          }
          if (rng.next() < 0.3) await new Promise((r) => setTimeout(r, rng.int(0, 30)));
        }
        const want = expected(c, "me");
        await waitUntil(
          () => JSON.stringify(latest) === JSON.stringify(want),
          `seed ${seed} step ${step}: client set = controller set`,
        );
        const wantOld = JSON.stringify(expected(c, "old"));
        await waitUntil(
          () => JSON.stringify((old.lists.at(-1)?.peers ?? []).map(peerFromMessage)) === wantOld,
          `seed ${seed} step ${step}: old watcher's full list`,
        );
        await waitUntil(
          () =>
            JSON.stringify([...incHeld.values()].map(peerFromMessage).sort(byNode)) ===
            JSON.stringify(expected(c, "old")),
          `seed ${seed} step ${step}: raw incremental watcher`,
        );
      }
    }
    assert.ok(emitted > 20);
    assert.ok(
      old.lists.every((l) => l.delta !== true && l.removed?.length === 0),
      "no delta ever reaches a watcher that did not opt in",
    );
    assert.equal(incLists[0]?.delta, false, "a stream starts with a full list");
    assert.ok(incLists.filter((l) => l.delta).length > 10, "the opted-in watcher got deltas");
    assert.ok(
      incLists.slice(1).every((l) => l.delta === true && l.peers.length + (l.removed?.length ?? 0) <= 4),
      "each delta carries only the changes of one burst",
    );
  } finally {
    inc.cancel();
    old.cancel();
    raw.close();
    await agent.stop();
    await c.stop();
  }
});

/** Seeded PRNG (mulberry32): same seed, same sequence. */
function createPrng(seed: number) {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number): number => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)] as T;
  return { next, int, pick };
}

function byNode(a: Peer, b: Peer): number {
  return a.nodeName < b.nodeName ? -1 : a.nodeName > b.nodeName ? 1 : 0;
}
