// Fleet API answers for the web app's page tests (Chromium request interception). Shapes follow the shared
// contract types; these stubs exist only in tests, never in the app.
import type {
  FleetMatrix,
  FleetNode,
  FleetOverview,
  FleetPair,
  FleetProtocol,
  FleetTopology,
  MatrixCell,
} from "@svc/contract";

const NOW = "2026-01-01T12:00:00Z";
/** Three cluster nodes in two zones and one external agent without the UDP plane. */
const NODES = [
  { name: "node-1", zone: "zone-a", external: false, planes: ["tcp", "udp", "icmp", "pmtu"] },
  { name: "node-2", zone: "zone-b", external: false, planes: ["tcp", "udp", "icmp", "pmtu"] },
  { name: "node-3", zone: "zone-a", external: false, planes: ["tcp", "udp", "icmp", "pmtu"] },
  { name: "ext-1", zone: "external", external: true, planes: ["tcp", "icmp"] },
];

function small(protocol: FleetProtocol): FleetMatrix {
  const cells: MatrixCell[] = [];
  for (const s of NODES)
    for (const d of NODES) {
      if (s === d) continue;
      const c: MatrixCell = {
        source: s.name,
        destination: d.name,
        tier: "healthy",
        failRatio: 0,
        rttP95Seconds: 0.0012,
      };
      if (!s.planes.includes(protocol)) cells.push({ source: s.name, destination: d.name, tier: "notrun" });
      else if (protocol === "udp" && s.name === "node-1" && d.name === "node-2")
        cells.push({ ...c, tier: "failing", failRatio: 1, lossRatio: 1 });
      else if (protocol === "pmtu") {
        const reduced = d.name === "node-2";
        cells.push({
          source: s.name,
          destination: d.name,
          tier: d.name === "ext-1" ? "nodata" : reduced ? "degraded" : "healthy",
          ...(d.name === "ext-1"
            ? {}
            : {
                pmtu: {
                  badge: reduced ? "Reduced" : "Full size",
                  bytes: reduced ? 1400 : 1500,
                  probeBytes: 1500,
                },
              }),
        });
      } else if (protocol === "tcp" && s.name === "node-3" && d.name === "ext-1")
        cells.push({ source: s.name, destination: d.name, tier: "unplanned" });
      else cells.push(c);
    }
  return { protocol, generatedAt: NOW, sparse: protocol === "tcp", nodes: NODES, cells };
}

/** A synthetic fleet of `n` nodes in 4 zones, every 37th pair failing and every 11th degraded. */
export function syntheticMatrix(n: number, protocol: FleetProtocol): FleetMatrix {
  const nodes = Array.from({ length: n }, (_, i) => ({
    name: `node-${String(i + 1).padStart(3, "0")}`,
    zone: `zone-${"abcd"[i % 4]}`,
    external: false,
    planes: ["tcp", "udp", "icmp", "pmtu"],
  }));
  const cells: MatrixCell[] = [];
  let k = 0;
  for (const s of nodes)
    for (const d of nodes) {
      if (s === d) continue;
      k++;
      const tier = k % 37 === 0 ? "failing" : k % 11 === 0 ? "degraded" : "healthy";
      cells.push({
        source: s.name,
        destination: d.name,
        tier,
        failRatio: tier === "failing" ? 0.8 : 0,
        rttP95Seconds: 0.001,
      });
    }
  return { protocol, generatedAt: NOW, sparse: false, nodes, cells };
}

/** The matrix the tests use: icmp is the 200-node fleet (canvas), the others the 4-node one (DOM grid). */
export function matrixFixture(protocol: FleetProtocol): FleetMatrix {
  return protocol === "icmp" ? syntheticMatrix(200, "icmp") : small(protocol);
}

/** node-1 on PMTU or UDP: inbound (From peers) strictly worse on UDP, 2 of 3 pairs scored. */
export function nodeFixture(protocol: FleetProtocol): FleetNode {
  const pmtu = protocol === "pmtu";
  return {
    name: "node-1",
    zone: "zone-a",
    ready: true,
    protocol,
    tier: "failing",
    healthPercent: 0,
    scored: 2,
    total: 3,
    to: [
      pmtu
        ? { peer: "node-2", tier: "degraded", pmtuBytes: 1400, probeBytes: 1500 }
        : { peer: "node-2", tier: "degraded", failRatio: 0.2, rttP95Seconds: 0.003 },
      {
        peer: "node-3",
        tier: "healthy",
        failRatio: 0,
        rttP95Seconds: 0.001,
        pmtuBytes: 1500,
        probeBytes: 1500,
      },
    ],
    from: [
      { peer: "node-2", tier: "failing", failRatio: 1, lossRatio: 1, rttP95Seconds: 0.004 },
      { peer: "node-3", tier: "nodata" },
    ],
  };
}

/** node-1 -> node-2 over the last hour, UDP failing, an MTR path of two hops. */
export function pairFixture(): FleetPair {
  const t0 = Math.floor(Date.now() / 1000) - 3600; // inside the page's default 1h window
  const history = (loss: number) =>
    Array.from({ length: 60 }, (_, i) => ({
      t: t0 + i * 60,
      rttSeconds: 0.001 + (i % 7) * 0.0002,
      lossRatio: i > 40 ? loss : 0,
    }));
  return {
    source: "node-1",
    destination: "node-2",
    protocols: {
      tcp: { tier: "healthy", failRatio: 0, rttP95Seconds: 0.0015, history: history(0) },
      udp: { tier: "failing", failRatio: 1, lossRatio: 1, history: history(1) },
      icmp: { tier: "healthy", failRatio: 0, lossRatio: 0, rttP95Seconds: 0.0011, history: history(0) },
      pmtu: { tier: "degraded", pmtu: { badge: "Reduced", bytes: 1400, probeBytes: 1500 }, history: [] },
    },
    mtr: {
      at: NOW,
      hops: [
        { number: 1, ip: "198.18.1.1", rttSeconds: 0.0004, lossRatio: 0 },
        { number: 2, ip: "198.18.1.3", rttSeconds: 0.0009, lossRatio: 0 },
      ],
    },
  };
}

/** Two zones, one external agent, one not-ready node, one failing link. */
export function topologyFixture(): FleetTopology {
  return {
    generatedAt: NOW,
    nodes: NODES.map((n) => ({
      name: n.name,
      zone: n.zone,
      external: n.external,
      ready: n.name !== "node-3",
      agent: { id: `agent-${n.name}`, podIP: "198.18.1.10" },
    })),
    links: [
      {
        source: "node-1",
        destination: "node-2",
        tier: "failing",
        pmtu: { badge: "Black hole", bytes: 576, probeBytes: 1500 },
      },
      {
        source: "node-2",
        destination: "node-1",
        tier: "healthy",
        pmtu: { badge: "Full size", bytes: 1500, probeBytes: 1500 },
      },
      {
        source: "node-1",
        destination: "node-3",
        tier: "healthy",
        pmtu: { badge: "Full size", bytes: 1500, probeBytes: 1500 },
      },
      {
        source: "node-2",
        destination: "node-3",
        tier: "degraded",
        pmtu: { badge: "Reduced", bytes: 1400, probeBytes: 1500 },
      },
      { source: "ext-1", destination: "node-1", tier: "healthy" },
    ],
  };
}

/** 4 agents, 1 missing, the UDP pair failing. */
export function overviewFixture(): FleetOverview {
  return {
    generatedAt: NOW,
    agents: 4,
    missingAgents: 1,
    pairs: {
      tcp: { monitored: 11, failing: 0 },
      udp: { monitored: 9, failing: 1 },
      icmp: { monitored: 12, failing: 0 },
      pmtu: { monitored: 9, failing: 0 },
    },
    worstPairs: [
      {
        source: "node-1",
        destination: "node-2",
        protocol: "udp",
        tier: "failing",
        failRatio: 1,
        lossRatio: 1,
      },
      {
        source: "node-2",
        destination: "node-3",
        protocol: "pmtu",
        tier: "failing",
        pmtu: { badge: "Black hole", bytes: 576, probeBytes: 1500 },
      },
    ],
  };
}
