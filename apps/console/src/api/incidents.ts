/**
 * Handlers of the incident routes (contract: @svc/contract incidents.ts): read with `incidents:read`, write with
 * `incidents:write`; every write audited in its own transaction; 503 without a database.
 */
import * as c from "@svc/contract";
import { UnavailableError } from "../errors.ts";
import type { Incidents } from "../incidents/incidents.ts";
import type { AddRoute } from "./register.ts";

/** Registers the incident routes. */
export function addIncidentRoutes(add: AddRoute, deps: { incidents: Incidents | undefined }): void {
  const incidents = (): Incidents => {
    if (!deps.incidents) throw new UnavailableError("incidents need the database");
    return deps.incidents;
  };
  add(c.listIncidents, ({ query }) => incidents().list(query));
  add(c.getIncident, ({ params, query }) => incidents().get(params.id, query.at));
  add(c.createIncident, ({ body, actor }) => incidents().create(body, actor));
  add(c.resolveIncident, ({ params, actor }) => incidents().resolve(params.id, actor));
  add(c.reopenIncident, ({ params, actor }) => incidents().reopen(params.id, actor));
  add(c.updateIncidentNotes, ({ params, body, actor }) =>
    incidents().updateNotes(params.id, body.notes, actor),
  );
  add(c.pinFinding, ({ params, body, actor }) => incidents().pin(params.id, body, actor));
  add(c.unpinFinding, async ({ params, actor }) => {
    await incidents().unpin(params.id, params.pinId, actor);
  });
  add(c.deleteIncident, async ({ params, actor }) => {
    await incidents().delete(params.id, actor);
  });
}
