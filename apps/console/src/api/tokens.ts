/**
 * Handlers of the API token routes (contract: @svc/contract tokens.ts; `tokens:manage`; 503 without a database).
 * Only a session or header identity mints: a token or the anonymous caller gets 403 (a token cannot outlive its
 * owner's account by minting more tokens). Mint, revoke and delete are audited.
 */
import * as c from "@svc/contract";
import type { FastifyRequest } from "fastify";
import type { Principal } from "../auth/principal.ts";
import { ForbiddenError, UnavailableError } from "../errors.ts";
import type { NewAuditRow } from "../store/store.ts";
import type { TokenAdmin } from "../tokens/token-admin.ts";
import type { AddRoute } from "./register.ts";

/** Dependencies of the token routes. */
export interface TokenRouteDeps {
  tokens?: TokenAdmin;
  audit: (row: Omit<NewAuditRow, "at">) => Promise<void>;
}

/** Registers the token routes. */
export function addTokenRoutes(add: AddRoute, deps: TokenRouteDeps): void {
  const tokens = (): TokenAdmin => {
    if (!deps.tokens) throw new UnavailableError("API tokens need the database");
    return deps.tokens;
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

  add(c.listTokens, async () => ({ tokens: await tokens().list() }));

  add(c.mintToken, async ({ req, principal: p, body }) => {
    const admin = tokens();
    if (p.kind === "token" || p.kind === "anonymous")
      throw new ForbiddenError(
        "API tokens are minted by a signed-in identity, not by a token or anonymously",
      );
    const expiresAt = body.expiresAt ? Date.parse(body.expiresAt) : null;
    const minted = await admin.mint(p.subject, body.name, expiresAt);
    await audit(req, p, { tokenId: minted.id, name: minted.name });
    return minted;
  });

  add(c.revokeToken, async ({ req, principal: p, params }) => {
    const view = await tokens().revoke(params.id);
    await audit(req, p, { tokenId: view.id, name: view.name });
    return view;
  });

  add(c.deleteToken, async ({ req, principal: p, params }) => {
    const gone = await tokens().delete(params.id);
    await audit(req, p, { tokenId: gone.id, name: gone.name });
  });
}
