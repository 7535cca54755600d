/**
 * API tokens (spec §3.3, §5.6; paths are the console's choice). All need `tokens:manage`; 503 without a database.
 * Only a session or header identity mints: a token or the anonymous caller gets 403.
 */
import { z } from "zod";
import { errors } from "./errors.ts";
import { route } from "./route.ts";
import { nameText, text } from "./strings.ts";

/** State of a token at an instant (spec §3.3). */
export const TokenState = z.enum(["active", "revoked", "spent"]);
export type TokenState = z.infer<typeof TokenState>;

/** A token as the API shows it: never the secret, never its hash. Times are ISO 8601. */
export const TokenView = z
  .object({
    id: z.string(),
    name: z.string(),
    owner: z.string().describe("identity string of the owner (the minter)"),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
    expiresAt: z.string().nullable(),
    state: TokenState,
  })
  .meta({ id: "TokenView" });
export type TokenView = z.infer<typeof TokenView>;

/** The answer to a mint: the view plus the secret, shown this once. */
export const MintedToken = TokenView.extend({
  token: z.string().describe("the secret (svct_...), shown once; only its SHA-256 is stored"),
}).meta({ id: "MintedToken" });
export type MintedToken = z.infer<typeof MintedToken>;

/** Path parameters naming a token. */
export const TokenIdParams = z.object({ id: text(64) });

export const listTokens = route({
  name: "listTokens",
  method: "GET",
  path: "/api/v1/tokens",
  tag: "tokens",
  summary: "API tokens",
  access: "tokens:manage",
  spec: false,
  responses: { 200: z.object({ tokens: z.array(TokenView) }), ...errors(403, 503) },
});

export const mintToken = route({
  name: "mintToken",
  method: "POST",
  path: "/api/v1/tokens",
  tag: "tokens",
  summary: "Mints a token holding exactly `auth.defaultRole`; the secret is in this answer only",
  description:
    "403 for a token or anonymous caller; 422 for an empty name or an expiry in the past. Audited.",
  access: "tokens:manage",
  spec: false,
  body: z.strictObject({
    name: nameText(100),
    expiresAt: z.iso
      .datetime({ offset: true })
      .nullable()
      .optional()
      .describe("ISO 8601; null or absent: never"),
  }),
  example: { name: "ci-pipeline" },
  responses: { 201: MintedToken, ...errors(400, 403, 422, 503) },
});

export const revokeToken = route({
  name: "revokeToken",
  method: "POST",
  path: "/api/v1/tokens/{id}/revoke",
  tag: "tokens",
  summary: "Revokes an active token",
  description: "409 unless active; 404 unknown. Audited.",
  access: "tokens:manage",
  spec: false,
  params: TokenIdParams,
  responses: { 200: TokenView, ...errors(403, 404, 409, 503) },
});

export const deleteToken = route({
  name: "deleteToken",
  method: "DELETE",
  path: "/api/v1/tokens/{id}",
  tag: "tokens",
  summary: "Deletes a revoked or spent token",
  description: "409 while active (revoke first); 404 unknown. Audited.",
  access: "tokens:manage",
  spec: false,
  params: TokenIdParams,
  responses: { 204: null, ...errors(403, 404, 409, 503) },
});
