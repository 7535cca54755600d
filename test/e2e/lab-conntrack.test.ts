import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import {
  enableConntrack,
  flowsPerPeer,
  Lab,
  listTrackedFlows,
  type PeerFlows,
  ssAddress,
  timeWaitSockets,
} from "@svc/lab";
import { needsBinary, needsRoot, skipUnless } from "../helpers/env.ts";
import { scrape } from "../helpers/metrics-text.ts";

/**
 * Issue 38: the agent's kernel footprint. One agent's namespace tracks connections (an nftables `ct state` rule,
 * as a Kubernetes node has); the lab probes every 2 s; the flows tracked per peer stay within the bound and no
 * TIME_WAIT socket piles up on either side. Probing one round per connection closed gracefully would pass the
 * bound within 40 s (tcp TIME_WAIT entries are held 120 s), a new udp source port per round within a minute.
 */
const opts = skipUnless(needsRoot(), needsBinary("/usr/sbin/nft"), needsBinary("/usr/bin/ss"));
const BOUND_PER_PEER = 20;
/** how long the lab probes under observation (a pile-up of 120 s TIME_WAIT entries shows in a third of it) */
const OBSERVE_MS = 70_000;
const SAMPLE_EVERY_MS = 5_000;

describe("lab: the flows one agent's namespace tracks per peer at a 2 s interval", opts, () => {
  let lab: Lab;
  const every2s = { enabled: true, interval: "2s", timeout: "1s" };

  before(async () => {
    lab = new Lab({
      removeDirOnStop: true,
      agents: 4,
      netns: true,
      prometheus: false,
      console: false,
      config: {
        controller: { agentTtl: "10s" },
        checkers: { tcp: every2s, udp: { ...every2s, timeout: "500ms", packets: 3 }, icmp: every2s },
      },
    });
    await lab.start();
  });
  after(async () => {
    await lab?.stop();
  });

  test(`at most ${BOUND_PER_PEER} tracked flows per peer, no TIME_WAIT on either side`, async (t) => {
    const node = lab.node("node-1");
    assert.ok(node.namespace, "the lab runs in namespaces");
    const peers = lab.nodes.filter((n) => n !== node).map((n) => n.address);
    await enableConntrack(node.namespace);
    const worst = new Map<string, PeerFlows>();
    const timeWait: string[] = [];
    let last = new Map<string, PeerFlows>();
    const end = Date.now() + OBSERVE_MS;
    let samples = 0;
    while (Date.now() < end) {
      await sleep(SAMPLE_EVERY_MS);
      last = flowsPerPeer(await listTrackedFlows(node.namespace), peers);
      samples++;
      for (const [peer, c] of last) if (c.total > (worst.get(peer)?.total ?? -1)) worst.set(peer, c);
      // TIME_WAIT sockets between agents, in every agent's namespace (prober and responder sides)
      for (const n of lab.nodes) {
        const others = new Set(lab.nodes.filter((o) => o !== n).map((o) => o.address));
        for (const s of await timeWaitSockets(n.namespace ?? ""))
          if (others.has(ssAddress(s.remote))) timeWait.push(`${n.name}: ${s.local} -> ${s.remote}`);
      }
    }
    const seen = [...worst].map(([p, c]) => `${p}: ${JSON.stringify(c)}`).join("\n");
    t.diagnostic(`worst sample per peer over ${samples} samples: ${seen.replaceAll("\n", "; ")}`);
    assert.ok(samples >= 10, `only ${samples} samples`);
    for (const [peer, c] of worst) {
      assert.ok(
        c.total <= BOUND_PER_PEER,
        `peer ${peer} held ${c.total} tracked flows; worst samples:\n${seen}`,
      );
      assert.equal(c.tcpTimeWait, 0, `peer ${peer}: tcp flows in TIME_WAIT; worst samples:\n${seen}`);
      // one icmp identifier per prober for its life: one flow each way, whatever the rounds (30 s timeout, 2 s)
      assert.ok(c.icmp <= 2, `peer ${peer}: ${c.icmp} icmp flows; worst samples:\n${seen}`);
    }
    assert.deepEqual(timeWait, [], "TIME_WAIT sockets between agents");
    // the flows were there to count: every peer probed us and was probed on tcp, udp and icmp
    for (const [peer, c] of last)
      assert.ok(c.tcp >= 1 && c.udp >= 1 && c.icmp >= 1, `peer ${peer}: ${JSON.stringify(c)}`);
  });

  test("the probes kept their figures: tcp connect and total times, udp and icmp replies", async () => {
    const samples = await scrape(`${lab.node("node-1").metricsUrl}/metrics`);
    const sum = (name: string, labels: Record<string, string> = {}): number =>
      samples
        .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
        .reduce((a, s) => a + s.value, 0);
    const ok = sum("svc_tcp_results_total", { result: "success" });
    assert.ok(ok >= 3 * 20, `${ok} tcp successes`);
    // a loaded 2-core host may miss a 1 s timeout now and then; a broken close would miss them all
    const fail = sum("svc_tcp_results_total", { result: "fail" });
    assert.ok(fail <= ok * 0.02, `${fail} tcp failures, ${ok} successes`);
    // a successful probe has its total time: our FIN answered by the peer's reset
    const connects = sum("svc_tcp_connect_duration_seconds_count");
    const totals = sum("svc_tcp_total_duration_seconds_count");
    assert.ok(totals >= connects * 0.98, `${totals} total times for ${connects} connects`);
    assert.ok(sum("svc_udp_results_total", { result: "success" }) >= 3 * 20, "udp successes");
    assert.ok(sum("svc_icmp_results_total", { result: "success" }) >= 3 * 20, "icmp successes");
  });
});
