import type * as proto from "./generated/svc.ts";

/** svc.v1.PairProblem: one pair of the reporting agent and plane in trouble now. */
export type PairProblemMessage = proto.PairProblem;
/** svc.v1.ReportPairStateRequest */
export type ReportPairStateRequest = proto.ReportPairStateRequest;
/** svc.v1.ReportPairStateResponse */
export type ReportPairStateResponse = proto.ReportPairStateResponse;

/** The planes a pair state names (svc_peer_problem_ratio's `plane`). */
export const PAIR_STATE_PLANES = ["tcp", "udp", "icmp", "pmtu"] as const;
export type PairStatePlane = (typeof PAIR_STATE_PLANES)[number];

/** One pair in trouble now, as the controller's GET /api/v1/pair-states lists it. */
export interface PairStateProblem {
  source: string;
  destination: string;
  plane: PairStatePlane;
  /** as svc_peer_problem_ratio: (0, 1] */
  ratio: number;
}

/** The controller's GET /api/v1/pair-states: the sources that report their state, and their pairs in trouble. */
export interface PairStatesBody {
  /** node names whose agent reported within the controller's staleness bound: their pairs not listed are fine */
  sources: string[];
  problems: PairStateProblem[];
}
