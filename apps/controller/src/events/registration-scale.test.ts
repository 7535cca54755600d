/**
 * Events at scale (issue 18, Deliver 2): with `controller.events.enabled` a registration must cost the same
 * whatever the fleet size. Before 9eb454a every registry change re-listed (and sorted) the whole inventory to diff
 * nodes and scanned every agent to find the one on a joined node, so N registrations cost O(N^2) (5,000 agents:
 * 20.4 s with events on, 1.97 s off). Judged without timing: a real Controller, real gRPC registrations, and a
 * count of the agent entries the registry hands out (`registry.list()`, which the registration-based node
 * inventory also reads) while they happen. Peer lists are held back (peerDebounceMs) so only the registration path
 * is counted; the broadcaster's one list per flush is linear either way.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Controller } from "../controller.ts";
import { RegistrationNodeSource } from "../nodes/registration-node-source.ts";
import { RawAgentClient, registerRequest } from "../testing/raw-client.ts";
import { testConfig } from "../testing/test-config.ts";
import { waitUntil } from "../testing/wait-until.ts";
import { EventWatch, payloadOf } from "./testdata/event-watch.ts";

const version = { version: "2.5.0", commit: "t" };

interface Work {
  /** agent entries returned by registry.list() while the fleet registered */
  listed: number;
  /** TopologyChanged events published */
  events: number;
  /** largest event payload, bytes of JSON */
  largestPayload: number;
}

async function registerFleet(n: number, eventsEnabled: boolean): Promise<Work> {
  let listed = 0;
  const c = new Controller({
    config: testConfig({ eventsEnabled }),
    version,
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
    peerDebounceMs: 3_600_000,
    nodeSource: (registry) => {
      // count, do not change: the real list, its length added up
      const list = registry.list.bind(registry);
      registry.list = () => {
        const all = list();
        listed += all.length;
        return all;
      };
      return new RegistrationNodeSource(registry);
    },
  });
  await c.start();
  const watch = eventsEnabled ? new EventWatch(c.grpcPort) : undefined;
  const raw = new RawAgentClient(c.grpcPort);
  try {
    await watch?.opened();
    const start = listed;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < n) {
        const i = next++;
        await raw.register(
          registerRequest({
            node_name: `node-${i}`,
            advertise_address: `198.18.${Math.floor(i / 250) + 1}.${(i % 250) + 1}`,
            zone: `z${i % 3}`,
            labels: { team: "net", rack: `r${i % 7}` },
          }),
        );
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    const work = { listed: listed - start, events: 0, largestPayload: 0 };
    if (watch !== undefined) {
      // every registration is one agent-joined and one node-joined
      const joined = () => watch.events.filter((e) => payloadOf(e).change === "node-joined").length;
      await waitUntil(() => joined() === n, `${n} node-joined events`, 30_000);
      for (const e of watch.events.filter((e) => e.type === "TopologyChanged")) {
        work.events++;
        work.largestPayload = Math.max(work.largestPayload, JSON.stringify(payloadOf(e)).length);
      }
    }
    assert.equal(c.registry.size, n);
    return work;
  } finally {
    raw.close();
    watch?.close();
    await c.stop();
  }
}

test("with events on, the work per registration does not grow with the fleet (50 vs 500 agents)", async () => {
  const small = await registerFleet(50, true);
  const large = await registerFleet(500, true);
  const perAgent = (w: Work, n: number) => w.listed / n;
  // the quadratic code listed every agent twice per registration: ~N/2 entries each on average
  assert.ok(
    perAgent(large, 500) <= perAgent(small, 50) + 1,
    `agent entries listed per registration: ${perAgent(small, 50)} at 50 agents, ${perAgent(large, 500)} at 500`,
  );
  // each registration publishes the same events, of a size that does not carry the fleet
  assert.equal(small.events / 50, large.events / 500);
  assert.ok(
    large.largestPayload <= small.largestPayload + 16,
    `largest event payload: ${small.largestPayload} B at 50 agents, ${large.largestPayload} B at 500`,
  );
  // and registration lists no more with events on than with them off
  const off = await registerFleet(500, false);
  assert.ok(large.listed <= off.listed + 500, `entries listed at 500: ${large.listed} on, ${off.listed} off`);
});
