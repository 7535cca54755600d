/**
 * The synthetic fleet's agents reporting their pair state to the controller (svc.v1.PairStateService), as agents
 * of this version do: one PairStateReporter per agent (the agent's own code), all over one channel from this
 * process (the registrations came from here too, so the controller takes their reports).
 */
import type { Controller } from "@svc/controller";
import { PairStateReporter, pairStateSender } from "@svc/controller-client";
import type { PairStatesBody } from "@svc/protocol";
import { nodeName } from "../matrix-render/synthetic-fleet.ts";

export interface PushingFleet {
  /** agent `source`'s tcp state toward `destination` (undefined: fine) */
  set(source: number, destination: number, ratio: number | undefined): void;
  stop(): void;
}

/** Starts n reporters (agent ids `agent-<i>`, as fleetController registers them) with the fleet's initial problems. */
export function pushFleet(
  n: number,
  controller: Controller,
  problems: [number, number, number][],
): PushingFleet {
  const sender = pairStateSender(`127.0.0.1:${controller.grpcPort}`);
  const reporters = Array.from(
    { length: n },
    (_, i) => new PairStateReporter({ agentId: () => `agent-${i}`, send: sender.send }),
  );
  for (const [s, d, ratio] of problems) reporters[s]?.set("tcp", nodeName(d), ratio);
  for (const r of reporters) r.start();
  return {
    set: (s, d, ratio) => reporters[s]?.set("tcp", nodeName(d), ratio),
    stop() {
      for (const r of reporters) r.stop();
      sender.channel.close();
    },
  };
}

/** The controller's GET /api/v1/pair-states. */
export async function controllerPairStates(controller: Controller): Promise<PairStatesBody> {
  return (await (
    await fetch(`http://127.0.0.1:${controller.httpPort}/api/v1/pair-states`)
  ).json()) as PairStatesBody;
}
