/**
 * Registers console handlers against the contract's route declarations (@svc/contract): the declaration gives
 * method and path, the access check runs before the handler, and path parameters, query and body are validated
 * by the declaration's zod schemas, so a handler receives typed, checked input and never checks shapes itself.
 *
 * Input rules (one place): a path parameter that fails its schema cannot name an object: 404; a malformed query
 * or body: 400 `invalid_input` naming each problem (`body.username: ...`). A handler's return value is sent with
 * the route's first success status (204 sends no body); a handler that answered through `reply` returns it.
 */
import { type Access, type ReplyOf, type RouteSpec, successStatuses } from "@svc/contract";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import type { Principal } from "../auth/principal.ts";
import { ForbiddenError, InvalidInputError, NotFoundError } from "../errors.ts";
import type { Access as ResolvedAccess } from "../rbac/resolve.ts";
import type { AuditActor } from "../store/audit-row.ts";
import { type AccessResolver, requireCaller, requirePermission } from "./context.ts";

type Out<T> = T extends z.ZodType ? z.output<T> : undefined;

/** What a handler receives. `principal` is the checked caller (absent for `access: "none"`). */
export interface HandlerInput<S extends RouteSpec> {
  req: FastifyRequest;
  reply: FastifyReply;
  params: Out<S["params"]>;
  query: Out<S["query"]>;
  body: Out<S["body"]>;
  principal: S["access"] extends "none" ? Principal | undefined : Principal;
  /** the caller and this route's action (`METHOD /path`, Fastify path syntax) for the audit row of a change */
  actor: AuditActor;
}

// biome-ignore lint/suspicious/noConfusingVoidType: a handler of a route without a body is an async function returning nothing
type NoBodyReply = Promise<void | FastifyReply>;

/** A handler: the success body, or the reply it answered through. */
export type Handler<S extends RouteSpec> = (
  input: HandlerInput<S>,
) => ReplyOf<S> extends undefined ? NoBodyReply : Promise<ReplyOf<S> | FastifyReply>;

/** Per-route options. */
export interface RouteOptions {
  /** false: the route does not exist in this mode (404 before any other check) */
  available?: () => boolean;
  /** largest body in bytes, when not the server's default */
  bodyLimit?: number;
}

/** Registers handlers on one Fastify instance, checking access with `resolveAccess`. */
export type AddRoute = <S extends RouteSpec>(spec: S, handler: Handler<S>, opts?: RouteOptions) => void;

/** The Fastify path of a declaration (`{id}` -> `:id`). */
function fastifyPath(spec: Pick<RouteSpec, "path">): string {
  return spec.path.replace(/\{([A-Za-z]+)\}/g, ":$1");
}

/** The action an audit row names for a route: `METHOD /path` with `:param` placeholders. */
export function auditAction(spec: Pick<RouteSpec, "method" | "path">): string {
  return `${spec.method} ${fastifyPath(spec)}`;
}

function problems(where: string, error: z.ZodError): string {
  return error.issues.map((i) => `${[where, ...i.path.map(String)].join(".")}: ${i.message}`).join("; ");
}

async function checkAccess(
  req: FastifyRequest,
  access: Access,
  resolve: AccessResolver,
): Promise<Principal | undefined> {
  // the metrics listener has no authentication hook: nothing there needs a caller
  if (access === "none") return (req.consoleAuth as typeof req.consoleAuth | undefined)?.principal;
  if (access === "caller") return requireCaller(req);
  if (access === "role") {
    const principal = requireCaller(req);
    const resolved: ResolvedAccess = await resolve(req, principal);
    if (resolved.roles.length === 0) throw new ForbiddenError("no role");
    return principal;
  }
  return (await requirePermission(req, resolve, access)).principal;
}

/** The route adder for `app`. */
export function routeAdder(app: FastifyInstance, resolveAccess: AccessResolver): AddRoute {
  return (spec, handler, opts = {}) => {
    const [success = 200] = successStatuses(spec);
    const noBody = spec.responses[success] === null;
    const action = auditAction(spec);
    app.route({
      method: spec.method,
      url: fastifyPath(spec),
      ...(opts.bodyLimit === undefined ? {} : { bodyLimit: opts.bodyLimit }),
      handler: async (req, reply) => {
        if (opts.available && !opts.available()) throw new NotFoundError();
        const principal = await checkAccess(req, spec.access, resolveAccess);
        const params = spec.params?.safeParse(req.params);
        if (params && !params.success)
          throw new NotFoundError(`not found: ${problems("path", params.error)}`);
        const query = spec.query?.safeParse(req.query ?? {});
        if (query && !query.success) throw new InvalidInputError(problems("query", query.error));
        const body = spec.body?.safeParse(req.body);
        if (body && !body.success) throw new InvalidInputError(problems("body", body.error));
        const input = {
          req,
          reply,
          params: params?.data,
          query: query?.data,
          body: body?.data,
          principal,
          actor: {
            subject: principal?.subject || null,
            subjectDisplay: principal?.display ?? "",
            action,
            remoteAddr: req.clientAddr,
          },
        } as HandlerInput<typeof spec>;
        const out = await handler(input);
        // a handler that answered through `reply` and returned it: awaiting the reply (a thenable) settles with
        // undefined once the answer is out, so `sent` is the mark (sending again would only build an error)
        if (out === reply || reply.sent) return reply;
        if (noBody) return reply.code(success).send();
        return reply.code(success).send(out);
      },
    });
  };
}
