/**
 * Where is the fault (GET /api/v1/fleet/suspects): the smallest set of suspects that explains the failing pairs
 * of every protocol's matrix (node down / cut off inbound, outbound or both, a protocol on a node, path MTU on a
 * node, a zone, a zone pair, a pair's path, a protocol fleet-wide), each with its evidence, then alternatives that
 * fit less well. Now, as of a Time Machine instant (`at`), or over a window (`from`/`to`: suspects seen at any of
 * up to 8 instants across it, with when each was first and last seen). docs/decisions.md "Where is the fault".
 * Contract: fields may be added, never renamed or removed.
 */
import { z } from "zod";
import { errors } from "./errors.ts";
import { AtInstant, FleetProtocol } from "./fleet.ts";
import { route } from "./route.ts";

export const SuspectKind = z.enum([
  "node-down",
  "node",
  "node-protocol",
  "node-mtu",
  "zone",
  "zone-pair",
  "pair",
  "protocol",
]);
export type SuspectKind = z.infer<typeof SuspectKind>;

export const SuspectMode = z.enum([
  "down-agent",
  "down-host",
  "unreachable",
  "inbound",
  "outbound",
  "both",
  "partitioned",
]);
export type SuspectMode = z.infer<typeof SuspectMode>;

/** A block of the matrix: rows (sources) x columns (destinations); null = every node. */
export const SuspectScope = z
  .object({ sources: z.array(z.string()).nullable(), destinations: z.array(z.string()).nullable() })
  .meta({ id: "SuspectScope" });
export type SuspectScope = z.infer<typeof SuspectScope>;

export const Suspect = z
  .object({
    id: z.string().describe("stable while the same element is suspected, e.g. node:node-7:inbound"),
    kind: SuspectKind,
    mode: SuspectMode.describe(
      "down-agent: the host answers ping, its agent does not; down-host: nothing answers; unreachable: its " +
        "peers cannot reach it and it has not reported since (down or cut off, not known yet); inbound, " +
        "outbound, both: directions of a network fault; partitioned: zones",
    ),
    effect: z
      .enum(["fail", "loss"])
      .describe("fail: the pairs fail outright; loss: they lose part of their packets"),
    node: z.string().optional(),
    zones: z.array(z.string()).optional(),
    source: z.string().optional(),
    destination: z.string().optional(),
    protocols: z.array(FleetProtocol),
    confidence: z.number().min(0).max(1),
    explains: z.number().int().describe("failing cells it explains (alternatives: those it would)"),
    evidence: z.array(z.string()).describe("sentences, the first one the headline"),
    scope: z.array(SuspectScope).describe("where it shows on the matrix, for its protocols"),
    role: z.enum(["suspect", "alternative"]),
    since: z.string().describe("when it was first seen (console's memory; the instant asked for, at most)"),
    firstSeen: z.string().optional().describe("window answers: the first instant it was seen"),
    lastSeen: z.string().optional().describe("window answers: the last instant it was seen"),
  })
  .meta({ id: "Suspect" });
export type Suspect = z.infer<typeof Suspect>;

export const FleetSuspects = z
  .object({
    generatedAt: z.string(),
    /** window answers: the instants evaluated */
    instants: z.array(z.string()).optional(),
    failingCells: z.number().int().describe("failing or lossy cells of the matrices (the last instant)"),
    explainedCells: z.number().int(),
    observedCells: z.number().int(),
    suspects: z.array(Suspect),
  })
  .meta({ id: "FleetSuspects" });
export type FleetSuspects = z.infer<typeof FleetSuspects>;

export const getSuspects = route({
  name: "getSuspects",
  method: "GET",
  path: "/api/v1/fleet/suspects",
  tag: "fleet",
  summary: "Where is the fault: the suspects that explain the failing pairs, with evidence",
  description:
    "Now, as of `at` (Time Machine), or over `from`..`to` (both or neither; at most `prometheus.maxRange`, " +
    "evaluated at up to 8 instants). Needs the metrics server (503 `metrics_unconfigured`).",
  access: "role",
  spec: false,
  query: z.object({
    at: AtInstant,
    from: AtInstant.describe("window start (with `to`)"),
    to: AtInstant.describe("window end (with `from`)"),
  }),
  responses: { 200: FleetSuspects, ...errors(400, 401, 403, 502, 503) },
});
