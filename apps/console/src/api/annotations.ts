/**
 * Handlers of the annotation routes (contract: @svc/contract annotations.ts): read with `annotations:read`, write
 * with `incidents:write`; every write audited in its own transaction; 503 without a database.
 */
import * as c from "@svc/contract";
import type { Annotations } from "../annotations/annotations.ts";
import { InvalidInputError, UnavailableError } from "../errors.ts";
import { scopeNeedle } from "../events/scope.ts";
import type { AddRoute } from "./register.ts";

/** Dependencies of the annotation routes. */
export interface AnnotationRouteDeps {
  annotations?: Annotations;
}

/** Registers the annotation routes. */
export function addAnnotationRoutes(add: AddRoute, deps: AnnotationRouteDeps): void {
  const annotations = (): Annotations => {
    if (!deps.annotations) throw new UnavailableError("annotations need the database");
    return deps.annotations;
  };

  add(c.listAnnotations, async ({ query }) => {
    const store = annotations();
    const from = query.from === undefined ? undefined : Date.parse(query.from);
    const to = query.to === undefined ? undefined : Date.parse(query.to);
    if (from !== undefined && to !== undefined && from > to)
      throw new InvalidInputError("query.from: must not be after to");
    return {
      annotations: await store.list({
        ...(from !== undefined ? { from } : {}),
        ...(to !== undefined ? { to } : {}),
        ...(query.scope ? { needle: scopeNeedle(query.scope) } : {}),
      }),
    };
  });
  add(c.createAnnotation, ({ body, actor }) => annotations().create(body, actor));
  add(c.updateAnnotation, ({ params, body, actor }) => annotations().update(params.id, body, actor));
  add(c.deleteAnnotation, async ({ params, actor }) => {
    await annotations().delete(params.id, actor);
  });
}
