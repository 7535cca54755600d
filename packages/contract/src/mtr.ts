/**
 * MTR path history (spec §4.3, issue 21): every completed trace the console sees (run, schedule, pair-page
 * diagnostic) is stored as a content-hashed path per pair; a trace over the same path as the pair's latest only
 * moves that path's last-seen stamp. The list is the pair's path changes, newest first.
 */
import { z } from "zod";
import { errors } from "./errors.ts";
import { route } from "./route.ts";
import { text } from "./strings.ts";

/** Path changes one answer holds at most. */
export const MTR_SNAPSHOTS_MAX = 200;

export const MtrPathHop = z.object({
  number: z.number().int(),
  ip: z.string().describe('"" for a silent hop'),
  rttNs: z.number().nullable(),
  lossRatio: z.number().nullable(),
});

/** One path a pair's traces took, from its first trace to its latest. */
export const MtrSnapshot = z
  .object({
    pathHash: z.string().describe("sha256 of the hop addresses in order"),
    hops: z.array(MtrPathHop).describe("as the first trace over this path saw them"),
    origin: z
      .string()
      .describe("what traced it first: run, schedule or reactive (a controller MTRCompleted event)"),
    firstAt: z.string(),
    lastAt: z.string(),
    traces: z.number().int(),
  })
  .meta({ id: "MtrSnapshot" });
export type MtrSnapshot = z.infer<typeof MtrSnapshot>;

export const listMtrSnapshots = route({
  name: "listMtrSnapshots",
  method: "GET",
  path: "/api/v1/mtr/snapshots",
  tag: "mtr",
  summary: "A pair's MTR path changes, newest first",
  description: "`source` and `destination` are required (400 otherwise). 503 without a database.",
  access: "mtr:read",
  spec: true,
  query: z.object({ source: text(253).min(1), destination: text(253).min(1) }),
  responses: { 200: z.object({ snapshots: z.array(MtrSnapshot) }), ...errors(400, 401, 403, 503) },
});
