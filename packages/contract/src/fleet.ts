/**
 * The fleet API (GET /api/v1/fleet/*, POST /api/v1/fleet/check): matrix, topology, node and pair pages and the
 * overview. Reads are telemetry reads (spec §5.3): any caller holding a role. Prometheus-backed reads answer 503
 * `metrics_unconfigured` without `prometheus.url` (the topology answers from the controller alone) and 502 `metrics_unreachable` when Prometheus fails; 502
 * `controller_unreachable` / 503 `controller_unconfigured` for the controller. Matrix and topology bodies over
 * 64 KiB are gzip-compressed for clients sending Accept-Encoding: gzip.
 * Contract: fields may be added, never renamed or removed.
 */
import { z } from "zod";
import { errors } from "./errors.ts";
import { route } from "./route.ts";
import { nameText, text } from "./strings.ts";

/** The four measured protocols a matrix / node page / pair page is drawn for. */
export const FleetProtocol = z.enum(["tcp", "udp", "icmp", "pmtu"]);
export type FleetProtocol = z.infer<typeof FleetProtocol>;

/** Health tier of a cell, a link, a peer row or a node. */
export const FleetTier = z.enum(["healthy", "degraded", "failing", "nodata", "notrun", "unplanned"]);
export type FleetTier = z.infer<typeof FleetTier>;

/** The PMTU badge words shown in PMTU cells. */
export const PmtuBadgeWord = z.enum(["Full size", "Reduced", "Recovering", "Black hole"]);
export type PmtuBadgeWord = z.infer<typeof PmtuBadgeWord>;

/** PMTU reading of a pair: the badge, the discovered path MTU and the size that was probed. */
export const PmtuBadge = z
  .object({ badge: PmtuBadgeWord, bytes: z.number().optional(), probeBytes: z.number().optional() })
  .meta({ id: "PmtuBadge" });
export type PmtuBadge = z.infer<typeof PmtuBadge>;

/** One agent as a matrix row/column. */
export const MatrixNode = z
  .object({
    name: z.string(),
    zone: z.string(),
    external: z.boolean(),
    planes: z.array(z.string()).describe('"tcp", "udp", ... from capabilities (all when none given)'),
  })
  .meta({ id: "MatrixNode" });
export type MatrixNode = z.infer<typeof MatrixNode>;

/** One ordered pair of the matrix. */
export const MatrixCell = z
  .object({
    source: z.string(),
    destination: z.string(),
    tier: FleetTier,
    failRatio: z.number().optional(),
    lossRatio: z.number().optional(),
    rttP95Seconds: z.number().optional().describe("only where the p95 is above 100 ms (the degraded bound)"),
    pmtu: PmtuBadge.optional(),
  })
  .meta({ id: "MatrixCell" });
export type MatrixCell = z.infer<typeof MatrixCell>;

const matrixBase = {
  protocol: FleetProtocol,
  generatedAt: z.string(),
  sparse: z.boolean(),
  nodes: z.array(MatrixNode),
};

/** GET /api/v1/fleet/matrix (cells layout). */
export const FleetMatrix = z
  .object({
    ...matrixBase,
    cells: z
      .array(MatrixCell)
      .describe(
        "row-major in nodes order: every ordered pair on a full mesh; under a sparse plan the planned pairs (and every pair of a source that does not run the protocol), a pair left out being unplanned",
      ),
  })
  .meta({ id: "FleetMatrix" });
export type FleetMatrix = z.infer<typeof FleetMatrix>;

/** GET /api/v1/fleet/matrix?layout=grid: one letter per ordered pair, full cells only where figures say more. */
export const FleetMatrixGrid = z
  .object({
    ...matrixBase,
    layout: z.literal("grid"),
    tiers: z
      .string()
      .describe(
        "nodes.length^2 letters, row-major in nodes order (row = source, column = destination): h healthy, " +
          'd degraded, f failing, n no data, r not run, u unplanned, and "-" on the diagonal',
      ),
    details: z.array(MatrixCell).describe("the cells whose figures are not implied by their tier, row-major"),
  })
  .meta({ id: "FleetMatrixGrid" });
export type FleetMatrixGrid = z.infer<typeof FleetMatrixGrid>;

/** One node on the topology page. `agent` is absent when no agent is registered on the node. */
export const TopologyNode = z
  .object({
    name: z.string(),
    zone: z.string(),
    ready: z.boolean(),
    external: z.boolean(),
    agent: z.object({ id: z.string(), podIP: z.string() }).optional(),
  })
  .meta({ id: "TopologyNode" });
export type TopologyNode = z.infer<typeof TopologyNode>;

/** One directed link: worst tier over tcp/udp/icmp. */
export const TopologyLink = z
  .object({
    source: z.string(),
    destination: z.string(),
    tier: FleetTier.describe("the worst of tcp, udp and icmp"),
    pmtu: PmtuBadge.optional().describe("the pair's path MTU reading, when the pmtu plane measured it"),
  })
  .meta({ id: "TopologyLink" });
export type TopologyLink = z.infer<typeof TopologyLink>;

/**
 * GET /api/v1/fleet/topology (links leave out pairs unplanned or not run on all of tcp/udp/icmp). Without a metrics
 * server it is the controller's inventory alone: `figuresAbsent` true and every link's tier `nodata`.
 */
export const FleetTopology = z
  .object({
    generatedAt: z.string(),
    nodes: z.array(TopologyNode),
    links: z.array(TopologyLink),
    figuresAbsent: z
      .literal(true)
      .optional()
      .describe("true when no metrics server is configured: link tiers are nodata, nothing was measured"),
    controllerWarmingUp: z
      .literal(true)
      .optional()
      .describe("true while the controller is warming up after a start: agents may still be coming back"),
  })
  .meta({ id: "FleetTopology" });
export type FleetTopology = z.infer<typeof FleetTopology>;

/** One peer of a node (To peers: the node is the source; From peers: the node is the destination). */
export const PeerRow = z
  .object({
    peer: z.string(),
    tier: FleetTier,
    failRatio: z.number().optional(),
    lossRatio: z.number().optional(),
    rttP95Seconds: z.number().optional(),
    pmtuBytes: z.number().optional(),
    probeBytes: z.number().optional(),
  })
  .meta({ id: "PeerRow" });
export type PeerRow = z.infer<typeof PeerRow>;

/** GET /api/v1/fleet/nodes/{name}; `healthPercent` absent when no pair was scored. */
export const FleetNode = z
  .object({
    name: z.string(),
    zone: z.string(),
    ready: z.boolean(),
    protocol: FleetProtocol,
    tier: FleetTier,
    healthPercent: z.number().optional(),
    scored: z.number().int(),
    total: z.number().int(),
    to: z.array(PeerRow),
    from: z.array(PeerRow),
  })
  .meta({ id: "FleetNode" });
export type FleetNode = z.infer<typeof FleetNode>;

/** The selectable history windows of the pair page. */
export const PairWindow = z.enum(["15m", "1h", "6h", "24h"]);
export type PairWindow = z.infer<typeof PairWindow>;

/** One point of a pair's history chart. `t` is epoch seconds. */
export const PairHistoryPoint = z
  .object({
    t: z.number(),
    rttSeconds: z.number().optional().describe("RTT p95 over the step (tcp: connect time)"),
    lossRatio: z.number().optional(),
    failRatio: z.number().optional().describe("fail share of probe results over the step (tcp, udp, icmp)"),
    pmtuBytes: z.number().optional().describe("path MTU that crossed (pmtu)"),
  })
  .meta({ id: "PairHistoryPoint" });
export type PairHistoryPoint = z.infer<typeof PairHistoryPoint>;

/** A pair's health for one protocol plus its history over the requested window. */
export const PairProtocolHealth = z
  .object({
    tier: FleetTier,
    failRatio: z.number().optional(),
    lossRatio: z.number().optional(),
    rttP95Seconds: z.number().optional(),
    pmtu: PmtuBadge.optional(),
    reason: z
      .string()
      .optional()
      .describe(
        "why the tier differs from what the 5-minute figures alone say (latest results all failed/succeeded)",
      ),
    history: z.array(PairHistoryPoint),
  })
  .meta({ id: "PairProtocolHealth" });
export type PairProtocolHealth = z.infer<typeof PairProtocolHealth>;

/** One MTR hop (from svc_mtr_hop_rtt_seconds). */
export const MtrHop = z
  .object({
    number: z.number().int(),
    ip: z.string(),
    rttSeconds: z.number(),
    lossRatio: z
      .number()
      .optional()
      .describe("svc_mtr_hop_rtt_seconds carries no loss: currently always absent"),
  })
  .meta({ id: "MtrHop" });
export type MtrHop = z.infer<typeof MtrHop>;

/** GET /api/v1/fleet/pairs/{source}/{destination} */
export const FleetPair = z
  .object({
    source: z.string(),
    destination: z.string(),
    protocols: z.object({
      tcp: PairProtocolHealth,
      udp: PairProtocolHealth,
      icmp: PairProtocolHealth,
      pmtu: PairProtocolHealth,
    }),
    mtr: z.object({ at: z.string(), hops: z.array(MtrHop) }).optional(),
  })
  .meta({ id: "FleetPair" });
export type FleetPair = z.infer<typeof FleetPair>;

/** Monitored and failing pair counts of one protocol. */
export const PairCounts = z
  .object({ monitored: z.number().int(), failing: z.number().int() })
  .meta({ id: "PairCounts" });
export type PairCounts = z.infer<typeof PairCounts>;

/** One of the worst pairs on the overview. */
export const WorstPair = z
  .object({
    source: z.string(),
    destination: z.string(),
    protocol: FleetProtocol,
    tier: FleetTier,
    failRatio: z.number().optional(),
    lossRatio: z.number().optional(),
    pmtu: PmtuBadge.optional().describe(
      "protocol pmtu: the badge, the size that crossed and the size probed",
    ),
  })
  .meta({ id: "WorstPair" });
export type WorstPair = z.infer<typeof WorstPair>;

/** GET /api/v1/fleet/overview; missingAgents = expected - registered (never negative). */
export const FleetOverview = z
  .object({
    generatedAt: z.string(),
    agents: z.number().int(),
    missingAgents: z.number().int(),
    pairs: z.object({ tcp: PairCounts, udp: PairCounts, icmp: PairCounts, pmtu: PairCounts }),
    worstPairs: z.array(WorstPair),
  })
  .meta({ id: "FleetOverview" });
export type FleetOverview = z.infer<typeof FleetOverview>;

/** POST /api/v1/fleet/check request body. */
export const FleetCheckRequest = z.strictObject({
  source: nameText(253).min(1),
  destination: nameText(253).min(1),
  type: z.literal("tcp").optional(),
});
export type FleetCheckRequest = z.infer<typeof FleetCheckRequest>;

/** The controller's CheckResult (spec §2.5) as it answered; durations are integer nanoseconds. */
export const FleetCheckResult = z
  .object({
    type: z.string(),
    success: z.boolean().describe("false: the check ran and failed"),
    source: z.string(),
    destination: z.string().describe("node name, or the external target's name (never its address)"),
    sourceZone: z.string(),
    destZone: z.string(),
    duration: z.number(),
    details: z.record(z.string(), z.unknown()),
    error: z.string().optional(),
    timestamp: z.string().optional().describe("RFC 3339"),
  })
  .meta({ id: "CheckResult" });
export type FleetCheckResult = z.infer<typeof FleetCheckResult>;

/**
 * The Time Machine's instant (spec §1, §3.1): the answer shows the state as of then (Prometheus evaluated at that
 * time, the inventory rebuilt from stored topology). Needs the console's database: 503 `history_unavailable`
 * without one or before the first stored topology.
 */
export const AtInstant = z.iso
  .datetime({ offset: true, message: "at must be an ISO 8601 instant" })
  .optional()
  .describe("Time Machine: the state as of this instant (not in the future)");
const atQuery = { at: AtInstant };
const protocolQuery = z.object({ protocol: FleetProtocol.default("tcp"), ...atQuery });
const READ_ERRORS = errors(401, 403, 502, 503);

export const getMatrix = route({
  name: "getMatrix",
  method: "GET",
  path: "/api/v1/fleet/matrix",
  tag: "fleet",
  summary: "The pair matrix of one protocol: cells, or the compact grid layout",
  access: "role",
  spec: false,
  query: z.object({
    protocol: FleetProtocol.default("tcp"),
    layout: z.enum(["cells", "grid"], { message: "layout must be cells or grid" }).default("cells"),
    ...atQuery,
  }),
  responses: { 200: z.union([FleetMatrix, FleetMatrixGrid]), ...READ_ERRORS, ...errors(400) },
});

export const getTopology = route({
  name: "getTopology",
  method: "GET",
  path: "/api/v1/fleet/topology",
  tag: "fleet",
  summary: "Nodes, their agents and the directed links between them",
  description:
    "Without `prometheus.url` it answers from the controller alone: `figuresAbsent` true, every link `nodata`.",
  access: "role",
  spec: false,
  query: z.object(atQuery),
  responses: { 200: FleetTopology, ...READ_ERRORS, ...errors(400) },
});

export const getOverview = route({
  name: "getOverview",
  method: "GET",
  path: "/api/v1/fleet/overview",
  tag: "fleet",
  summary: "Agent counts, pair counts per protocol and the worst pairs",
  access: "role",
  spec: false,
  query: z.object(atQuery),
  responses: { 200: FleetOverview, ...READ_ERRORS, ...errors(400) },
});

export const getNode = route({
  name: "getNode",
  method: "GET",
  path: "/api/v1/fleet/nodes/{name}",
  tag: "fleet",
  summary: "One node: tier, health and its peers in both directions",
  description: "404 `unknown_node` when the name is not in the known-node inventory.",
  access: "role",
  spec: false,
  params: z.object({ name: text(253) }),
  query: protocolQuery,
  responses: { 200: FleetNode, ...READ_ERRORS, ...errors(400, 404) },
});

export const getPair = route({
  name: "getPair",
  method: "GET",
  path: "/api/v1/fleet/pairs/{source}/{destination}",
  tag: "fleet",
  summary: "One ordered pair: health per protocol with history, and the last MTR path",
  description: "404 `unknown_node` when either name is not in the known-node inventory.",
  access: "role",
  spec: false,
  params: z.object({ source: text(253), destination: text(253) }),
  query: z.object({ window: PairWindow.default("1h"), ...atQuery }),
  responses: { 200: FleetPair, ...READ_ERRORS, ...errors(400, 404) },
});

export const runFleetCheck = route({
  name: "runFleetCheck",
  method: "POST",
  path: "/api/v1/fleet/check",
  tag: "fleet",
  summary: "A one-shot tcp check of one pair through the controller",
  description:
    "Answers the controller's CheckResult, or the controller's status with its text as the error message " +
    "(400, 404, 413, 501, 502, 503, 504). Audited. An anonymous caller shares the per-address budget of " +
    "POST /api/v1/runs (429 with Retry-After).",
  access: "runs:create",
  spec: false,
  body: FleetCheckRequest,
  example: { source: "node-1", destination: "node-2" },
  responses: { 200: FleetCheckResult, ...errors(400, 403, 404, 429, 501, 502, 503, 504) },
});
