/**
 * The console as an OIDC relying party (spec §5.2, §5.7) over `openid-client`: authorization code with PKCE (S256),
 * `state` and `nonce`; a confidential client whose secret is re-read on every use (so a rotated secret applies at
 * once and fails sign-ins sealed under the old one). Provider metadata comes from discovery and is cached after the
 * first success. Every outbound request is bounded by OIDC_TIMEOUT_S.
 *
 * Identity rules: `oidc:<sub>`; an ID token with no `sub`, or a `sub` inside a reserved namespace (`oidc:`,
 * `local:`, `header:`, `token:`), is refused. Display name: `usernameClaim`, else `name`, else `email`, else `sub`
 * (a label only). Groups: the `groupsClaim` array of the ID token.
 */
import * as oidc from "openid-client";
import { type OidcSignInState, openState, sealState, type UnsealProblem } from "./state.ts";

/** Bound on each request to the provider (spec §5.7: refresh bounded at 15 s). */
export const OIDC_TIMEOUT_S = 15;
/** Namespaces a `sub` must not lie in (spec §5.2). */
export const RESERVED_SUB_PREFIXES = ["oidc:", "local:", "header:", "token:"] as const;

/** What the relying party needs from configuration. */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  redirectUrl: string;
  scopes: readonly string[];
  usernameClaim: string;
  groupsClaim: string;
  /** reads the current client secret */
  secret: () => Promise<string>;
  /** test only: permit plain-http provider URLs */
  allowInsecureRequests?: boolean;
}

/** A signed-in identity. */
export interface OidcIdentity {
  /** `oidc:<sub>` */
  subject: string;
  display: string;
  groups: string[];
}

/** Provider tokens kept in the session's data. */
export interface OidcSessionTokens {
  refreshToken?: string;
  /** epoch ms the access token expires (console clock) */
  accessExpiresAt?: number;
}

/** Why a callback was refused; `reason` is safe to show and to audit. */
export class OidcRefusal extends Error {
  constructor(
    readonly reason: string,
    /** true when the provider could not be reached or answered 5xx (502 rather than 401) */
    readonly upstream = false,
  ) {
    super(reason);
    this.name = "OidcRefusal";
  }
}

/** Outcome of a refresh (spec §5.7). */
export type RefreshOutcome =
  | { kind: "refreshed"; groups: string[] | undefined; tokens: OidcSessionTokens }
  | { kind: "ended"; reason: string }
  | { kind: "kept"; reason: string };

/** The relying party. */
export class OidcClient {
  private metadata: oidc.ServerMetadata | undefined;
  private configs = new Map<string, oidc.Configuration>();

  constructor(
    private readonly settings: OidcSettings,
    private readonly now: () => number,
  ) {}

  /** Starts a sign-in: the provider URL to redirect to and the sealed state for the cookie. */
  async begin(returnTo: string): Promise<{ url: string; sealed: string }> {
    const secret = await this.secret();
    const config = await this.config(secret);
    const s: OidcSignInState = {
      verifier: oidc.randomPKCECodeVerifier(),
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      returnTo,
      issuedAt: this.now(),
    };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.settings.redirectUrl,
      scope: this.settings.scopes.join(" "),
      code_challenge: await oidc.calculatePKCECodeChallenge(s.verifier),
      code_challenge_method: "S256",
      state: s.state,
      nonce: s.nonce,
    });
    return { url: url.href, sealed: sealState(s, secret) };
  }

  /** Finishes a sign-in from the callback URL and the sealed state; OidcRefusal when refused. */
  async finish(
    callbackUrl: URL,
    sealed: string | undefined,
  ): Promise<{ identity: OidcIdentity; tokens: OidcSessionTokens; returnTo: string }> {
    const secret = await this.secret();
    const opened = openState(sealed, secret, this.now());
    if (!opened.ok) throw new OidcRefusal(stateProblem(opened.problem));
    const config = await this.config(secret);
    // the provider sees the configured redirect URL; rebuild the current URL on it (a proxy may rewrite hosts)
    const current = new URL(this.settings.redirectUrl);
    current.search = callbackUrl.search;
    let result: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      result = await oidc.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: opened.state.verifier,
        expectedState: opened.state.state,
        expectedNonce: opened.state.nonce,
        idTokenExpected: true,
      });
    } catch (e) {
      throw refusalOf(e);
    }
    const claims = result.claims();
    if (!claims) throw new OidcRefusal("no ID token");
    return {
      identity: this.identity(claims),
      tokens: this.tokensOf(result),
      returnTo: opened.state.returnTo,
    };
  }

  /** Refreshes: new tokens and (when an ID token came back) the groups it names. */
  async refresh(refreshToken: string): Promise<RefreshOutcome> {
    let result: Awaited<ReturnType<typeof oidc.refreshTokenGrant>>;
    try {
      const config = await this.config(await this.settings.secret());
      result = await oidc.refreshTokenGrant(config, refreshToken);
    } catch (e) {
      const status = e instanceof oidc.ResponseBodyError ? e.status : 0;
      const code = e instanceof oidc.ResponseBodyError ? e.error : String(e);
      // invalid_grant or another 4xx ends the session; unreachable, timeout, 5xx, 408 and 429 keep it
      if (code === "invalid_grant" || (status >= 400 && status < 500 && status !== 408 && status !== 429))
        return { kind: "ended", reason: code };
      return { kind: "kept", reason: code };
    }
    const claims = result.claims();
    const tokens = this.tokensOf(result);
    tokens.refreshToken ??= refreshToken;
    return { kind: "refreshed", groups: claims ? this.groups(claims) : undefined, tokens };
  }

  private identity(claims: oidc.IDToken): OidcIdentity {
    const sub = typeof claims.sub === "string" ? claims.sub : "";
    if (sub === "") throw new OidcRefusal("ID token has no sub");
    if (RESERVED_SUB_PREFIXES.some((p) => sub.startsWith(p)))
      throw new OidcRefusal("ID token sub lies in a reserved namespace");
    const label = [ownClaim(claims, this.settings.usernameClaim), claims.name, claims.email, sub].find(
      (v): v is string => typeof v === "string" && v !== "",
    );
    return { subject: `oidc:${sub}`, display: label ?? sub, groups: this.groups(claims) };
  }

  private groups(claims: oidc.IDToken): string[] {
    const v = ownClaim(claims, this.settings.groupsClaim);
    if (typeof v === "string") return v === "" ? [] : [v];
    return Array.isArray(v) ? v.filter((g): g is string => typeof g === "string" && g !== "") : [];
  }

  private tokensOf(r: { refresh_token?: string; expiresIn(): number | undefined }): OidcSessionTokens {
    const expiresIn = r.expiresIn();
    return {
      refreshToken: r.refresh_token,
      accessExpiresAt: expiresIn === undefined ? undefined : this.now() + expiresIn * 1000,
    };
  }

  private async secret(): Promise<string> {
    try {
      return await this.settings.secret();
    } catch (e) {
      throw new OidcRefusal(`client secret unreadable: ${errorText(e)}`, true);
    }
  }

  private async config(secret: string): Promise<oidc.Configuration> {
    const cached = this.configs.get(secret);
    if (cached) return cached;
    const { settings } = this;
    const execute = settings.allowInsecureRequests ? [oidc.allowInsecureRequests] : [];
    if (!this.metadata) {
      try {
        const found = await oidc.discovery(new URL(settings.issuer), settings.clientId, secret, undefined, {
          execute,
          timeout: OIDC_TIMEOUT_S,
        });
        this.metadata = found.serverMetadata();
      } catch (e) {
        throw new OidcRefusal(`provider discovery failed: ${errorText(e)}`, true);
      }
    }
    const methods = this.metadata.token_endpoint_auth_methods_supported;
    const auth =
      !methods || methods.includes("client_secret_basic")
        ? oidc.ClientSecretBasic(secret)
        : oidc.ClientSecretPost(secret);
    const config = new oidc.Configuration(this.metadata, settings.clientId, secret, auth);
    for (const fn of execute) fn(config);
    config.timeout = OIDC_TIMEOUT_S;
    this.configs.clear(); // only the current secret's configuration is kept
    this.configs.set(secret, config);
    return config;
  }
}

function stateProblem(p: UnsealProblem): string {
  switch (p) {
    case "missing":
      return "no sign-in in progress (state cookie missing)";
    case "expired":
      return "sign-in took longer than 5 minutes";
    default:
      return "sign-in state does not open (tampered, or the client secret was rotated)";
  }
}

function errorText(e: unknown): string {
  if (e instanceof oidc.ResponseBodyError) return `${e.error} (${e.status})`;
  if (e instanceof oidc.AuthorizationResponseError) return e.error;
  return e instanceof Error ? e.message : String(e);
}

function refusalOf(e: unknown): OidcRefusal {
  if (e instanceof OidcRefusal) return e;
  if (e instanceof oidc.ResponseBodyError) return new OidcRefusal(errorText(e), e.status >= 500);
  if (e instanceof oidc.AuthorizationResponseError) return new OidcRefusal(`provider refused: ${e.error}`);
  const upstream = e instanceof TypeError || (e instanceof Error && e.name === "TimeoutError");
  return new OidcRefusal(`token exchange failed: ${errorText(e)}`, upstream);
}

/** The claim `name` only when the token carries it itself (a configured `constructor` names nothing inherited). */
function ownClaim(claims: oidc.IDToken, name: string): unknown {
  return Object.hasOwn(claims, name) ? claims[name] : undefined;
}
