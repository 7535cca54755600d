/**
 * API token routes (spec §3.3, §5.6; paths are the console's choice, the spec leaves them open). All need
 * `tokens:manage`; 503 without a database.
 *   GET    /api/v1/tokens             -> { tokens: TokenView[] }
 *   POST   /api/v1/tokens             { name, expiresAt?: ISO 8601 | null } -> 201 MintedToken (secret shown once)
 *   POST   /api/v1/tokens/:id/revoke  -> 200 TokenView (409 unless active)
 *   DELETE /api/v1/tokens/:id         -> 204 (409 while active)
 * Only a session or header identity mints: a token or the anonymous caller gets 403 (a token cannot outlive its
 * owner's account by minting more tokens). Mint, revoke and delete are audited.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import type { Principal } from "../auth/principal.ts";
import { ForbiddenError, InvalidInputError, UnavailableError } from "../errors.ts";
import type { NewAuditRow } from "../store/store.ts";
import type { TokenAdmin } from "../tokens/token-admin.ts";
import { type AccessResolver, requirePermission } from "./context.ts";

/** Base path of the token routes. */
export const TOKENS_PATH = "/api/v1/tokens";

/** Dependencies of the token routes. */
export interface TokenRouteDeps {
  tokens?: TokenAdmin;
  resolveAccess: AccessResolver;
  audit: (row: Omit<NewAuditRow, "at">) => Promise<void>;
}

const mintBody = z.strictObject({
  name: z.string().max(100),
  expiresAt: z.iso.datetime({ offset: true }).nullable().optional(),
});

/** Registers the token routes. */
export function addTokenRoutes(app: FastifyInstance, deps: TokenRouteDeps) {
  const guard = async (req: FastifyRequest): Promise<{ tokens: TokenAdmin; p: Principal }> => {
    const { principal } = await requirePermission(req, deps.resolveAccess, "tokens:manage");
    if (!deps.tokens) throw new UnavailableError("API tokens need the database");
    return { tokens: deps.tokens, p: principal };
  };
  const audit = (req: FastifyRequest, p: Principal, detail: Record<string, unknown>) =>
    deps.audit({
      subject: p.subject || null,
      subjectDisplay: p.display,
      action: `${req.method} ${req.routeOptions.url ?? req.url}`,
      outcome: "allowed",
      remoteAddr: req.clientAddr,
      detail,
    });
  const id = (req: FastifyRequest) => String((req.params as { id?: unknown }).id ?? "");

  app.get(TOKENS_PATH, async (req) => ({ tokens: await (await guard(req)).tokens.list() }));

  app.post(TOKENS_PATH, async (req, reply) => {
    const { tokens, p } = await guard(req);
    if (p.kind === "token" || p.kind === "anonymous")
      throw new ForbiddenError(
        "API tokens are minted by a signed-in identity, not by a token or anonymously",
      );
    const r = mintBody.safeParse(req.body);
    if (!r.success)
      throw new InvalidInputError("body must be {name: string, expiresAt?: ISO 8601 time | null}");
    const expiresAt = r.data.expiresAt ? Date.parse(r.data.expiresAt) : null;
    const minted = await tokens.mint(p.subject, r.data.name, expiresAt);
    await audit(req, p, { tokenId: minted.id, name: minted.name });
    return reply.code(201).send(minted);
  });

  app.post(`${TOKENS_PATH}/:id/revoke`, async (req) => {
    const { tokens, p } = await guard(req);
    const view = await tokens.revoke(id(req));
    await audit(req, p, { tokenId: view.id, name: view.name });
    return view;
  });

  app.delete(`${TOKENS_PATH}/:id`, async (req, reply) => {
    const { tokens, p } = await guard(req);
    const gone = await tokens.delete(id(req));
    await audit(req, p, { tokenId: gone.id, name: gone.name });
    return reply.code(204).send();
  });
}
