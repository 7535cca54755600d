/**
 * Handlers of the API token routes (contract: @svc/contract tokens.ts; `tokens:manage`; 503 without a database).
 * Only a session or header identity mints: a token or the anonymous caller gets 403 (a token cannot outlive its
 * owner's account by minting more tokens). Mint, revoke and delete write their audit row in their transaction.
 */
import * as c from "@svc/contract";
import { ForbiddenError, UnavailableError } from "../errors.ts";
import type { TokenAdmin } from "../tokens/token-admin.ts";
import type { AddRoute } from "./register.ts";

/** Dependencies of the token routes. */
export interface TokenRouteDeps {
  tokens?: TokenAdmin;
}

/** Registers the token routes. */
export function addTokenRoutes(add: AddRoute, deps: TokenRouteDeps): void {
  const tokens = (): TokenAdmin => {
    if (!deps.tokens) throw new UnavailableError("API tokens need the database");
    return deps.tokens;
  };

  add(c.listTokens, async () => ({ tokens: await tokens().list() }));

  add(c.mintToken, async ({ principal: p, body, actor }) => {
    const admin = tokens();
    if (p.kind === "token" || p.kind === "anonymous")
      throw new ForbiddenError(
        "API tokens are minted by a signed-in identity, not by a token or anonymously",
      );
    const expiresAt = body.expiresAt ? Date.parse(body.expiresAt) : null;
    return admin.mint(p.subject, body.name, expiresAt, actor);
  });

  add(c.revokeToken, ({ params, actor }) => tokens().revoke(params.id, actor));

  add(c.deleteToken, async ({ params, actor }) => {
    await tokens().delete(params.id, actor);
  });
}
