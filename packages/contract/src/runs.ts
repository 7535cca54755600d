/**
 * Diagnostics runs (spec §3.7, §4.3, §8.1): one probe type over many pairs, once (instant) or re-probed on a
 * cadence for a duration, each probe dispatched through the controller's diagnostics route. A spec that cannot
 * expand is 422 (no pairs, too many pairs, duration out of range); nothing is refused for cadence reasons. Creating
 * needs `runs:create`, reading `runs:read`; progress is pushed on the WebSocket topic `run:{id}`. Each round of a
 * schedule is listed as a run too (`origin: "schedule"`), so the pages that show runs show what schedules did.
 */
import { z } from "zod";
import { errors } from "./errors.ts";
import { route } from "./route.ts";
import { nameText, text } from "./strings.ts";

/** Pairs one run may hold at most. */
export const RUN_PAIRS_MAX = 100;
/** Samples per pair at most (spec §8.1). */
export const RUN_SAMPLES_MAX = 500;
/** Shortest and longest duration run, in seconds. */
export const RUN_DURATION_MIN_S = 5;
export const RUN_DURATION_MAX_S = 86_400;

export const RunProbeType = z.enum(["tcp", "udp", "icmp", "pmtu", "dns", "http", "mtr"]);
export type RunProbeType = z.infer<typeof RunProbeType>;

const node = nameText(253).min(1);

/** A run as asked for: explicit pairs and/or every source x destination (a node never probes itself). */
export const RunSpec = z
  .strictObject({
    type: RunProbeType,
    pairs: z
      .array(z.strictObject({ source: node, destination: node }))
      .max(10_000)
      .default([]),
    sources: z.array(node).max(1000).default([]),
    destinations: z.array(node).max(1000).default([]),
    durationSeconds: z
      .number()
      .min(0)
      .default(0)
      .describe(`0 = instant (one probe per pair); else ${RUN_DURATION_MIN_S}-${RUN_DURATION_MAX_S}`),
  })
  .meta({ id: "RunSpecInput" });
export type RunSpec = z.infer<typeof RunSpec>;

/** One pair of a run and how far it got. */
export const RunPair = z
  .object({
    source: z.string(),
    destination: z.string(),
    state: z.enum(["pending", "dispatched", "completed", "failed"]),
    samples: z.number().int().describe("probes answered by the controller"),
    successes: z.number().int(),
    lastError: z.string().nullable(),
    lastStatus: z
      .number()
      .int()
      .nullable()
      .optional()
      .describe("the controller's HTTP status for the latest probe; null when it could not be reached"),
    lastResult: z.record(z.string(), z.unknown()).nullable().describe("the latest CheckResult"),
  })
  .meta({ id: "RunPair" });
export type RunPair = z.infer<typeof RunPair>;

export const RunStatus = z.enum(["running", "completed", "partial", "failed", "interrupted"]);
export type RunStatus = z.infer<typeof RunStatus>;

/** The spec as stored: the expanded pairs and the planned cadence (absent for an instant run). */
export const StoredRunSpec = z
  .object({
    type: RunProbeType,
    pairs: z.array(z.object({ source: z.string(), destination: z.string() })),
    durationSeconds: z.number(),
    plannedSampleIntervalNs: z.number().int().optional(),
    plannedSamplesPerPair: z.number().int().optional(),
  })
  .meta({ id: "RunSpec" });
export type StoredRunSpec = z.infer<typeof StoredRunSpec>;

/**
 * Where a run came from: `manual`, started by a caller (POST /api/v1/runs, the pair page); `schedule`, one round of
 * a schedule (one instant probe from each agent the schedule's definition picks to its external target), recorded
 * when the round ends and purged with the history past `database.retentionDays`.
 */
export const RunOrigin = z.enum(["manual", "schedule"]);
export type RunOrigin = z.infer<typeof RunOrigin>;

/** An object a run refers to, by id and by its name at the time. */
export const RunRef = z.object({ id: z.string(), name: z.string() });
export type RunRef = z.infer<typeof RunRef>;

/** A run. */
export const Run = z
  .object({
    id: z.string(),
    status: RunStatus.describe("running, then completed, partial (some pairs failed), failed or interrupted"),
    spec: StoredRunSpec,
    plannedSampleIntervalNs: z.number().int().optional().describe("omitted for an instant run"),
    plannedSamplesPerPair: z.number().int().optional().describe("omitted for an instant run"),
    createdBy: z.string(),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
    pairs: z.array(RunPair),
    origin: RunOrigin,
    schedule: RunRef.nullable().describe(
      "origin schedule: the schedule whose round this was (its name then)",
    ),
    target: RunRef.nullable().describe(
      "origin schedule: the external target the round probed; each pair's destination is its name",
    ),
    error: z
      .string()
      .nullable()
      .describe("origin schedule: why the round could not probe at all (then it has no pairs)"),
  })
  .meta({ id: "Run" });
export type Run = z.infer<typeof Run>;

/** Progress pushed on `run:{id}`: the run as it stands. */
export type RunProgress = Run;

export const RunIdParams = z.object({ id: text(64) });

export const createRun = route({
  name: "createRun",
  method: "POST",
  path: "/api/v1/runs",
  tag: "runs",
  summary: "Starts a diagnostics run (many pairs, optionally repeated for a duration)",
  description:
    "422 when the spec cannot expand: no pairs to check, more than 100 pairs, a duration outside 5 s-24 h. " +
    "Cadence: duration/500 floored at 5 s (mtr 90 s, pmtu 15 s), at most 500 samples per pair. Audited.",
  access: "runs:create",
  spec: true,
  body: RunSpec,
  example: {
    type: "tcp",
    sources: ["node-1", "node-2", "node-3"],
    destinations: ["node-1", "node-2", "node-3"],
    durationSeconds: 60,
  },
  responses: { 201: Run, ...errors(400, 401, 403, 422, 503) },
});

export const listRuns = route({
  name: "listRuns",
  method: "GET",
  path: "/api/v1/runs",
  tag: "runs",
  summary: "Runs, newest first",
  description:
    "No source/destination filter (spec §4.3). `limit` 1-200, default 50. Lists runs started by hand and the " +
    "rounds of schedules alike (`origin`); scheduled rounds are purged past `database.retentionDays`.",
  access: "runs:read",
  spec: true,
  query: z.object({ limit: z.coerce.number().int().min(1).max(200).default(50) }),
  responses: { 200: z.object({ runs: z.array(Run) }), ...errors(400, 401, 403, 503) },
});

export const getRun = route({
  name: "getRun",
  method: "GET",
  path: "/api/v1/runs/{id}",
  tag: "runs",
  summary: "One run with its pairs",
  description: "404 for an unknown id.",
  access: "runs:read",
  spec: true,
  params: RunIdParams,
  responses: { 200: Run, ...errors(401, 403, 404, 503) },
});
