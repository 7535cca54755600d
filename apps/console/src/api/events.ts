/**
 * Handlers of the event history and cluster-event routes (contract: @svc/contract events.ts; `events:read`).
 * GET /api/v1/events needs the database (503 without); a cursor this console did not issue is 400.
 */
import * as c from "@svc/contract";
import type { EventHistory } from "../events/history.ts";
import type { AddRoute } from "./register.ts";

/** Dependencies of the event routes. */
export interface EventRouteDeps {
  history: EventHistory;
}

/** Registers GET /api/v1/events and GET /api/v1/k8s-events. */
export function addEventRoutes(add: AddRoute, deps: EventRouteDeps): void {
  add(c.listEvents, ({ query }) => deps.history.list(query));
  add(c.listK8sEvents, ({ query }) => deps.history.k8sEvents(query));
}
