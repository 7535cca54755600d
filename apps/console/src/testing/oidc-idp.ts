/**
 * Test helper (not a test file): a real OpenID provider (`oidc-provider`) on 127.0.0.1, plain http, with one
 * confidential client. Interactions are answered by the helper itself: the next sign-in is as `nextLogin`.
 * `rotate()` swaps in a provider with a new client secret on the same issuer; `failWith` makes every provider
 * request answer that status (an outage).
 */
import { generateKeyPairSync } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { type Configuration } from "oidc-provider";

// one signing key per process (keeps oidc-provider from using its development keys)
const signingKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });

/** An account at the test provider; `id` becomes `sub`. */
export interface IdpAccount {
  id: string;
  preferred_username?: string;
  name?: string;
  email?: string;
  groups?: string[];
}

/** The test provider. */
export class TestIdp {
  readonly accounts = new Map<string, IdpAccount>();
  /** account id the next interaction signs in as */
  nextLogin = "";
  /** when set, every request answers this status */
  failWith: number | undefined;
  /** authorization request URLs seen */
  readonly authRequests: URL[] = [];
  private provider!: Provider;

  private constructor(
    private readonly server: Server,
    readonly issuer: string,
    private readonly clientId: string,
    private readonly redirectUri: string,
  ) {}

  /** Starts on 127.0.0.1 port 0. */
  static async start(clientId: string, secret: string, redirectUri: string): Promise<TestIdp> {
    let idp: TestIdp | undefined;
    const server = createServer((req, res) => {
      idp?.handle(req, res).catch(() => {
        res.statusCode = 500;
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    idp = new TestIdp(server, `http://127.0.0.1:${port}`, clientId, redirectUri);
    idp.rotate(secret);
    return idp;
  }

  /** Replaces the provider with one whose client secret is `secret` (same issuer). */
  rotate(secret: string): void {
    const config: Configuration = {
      clients: [
        {
          client_id: this.clientId,
          client_secret: secret,
          redirect_uris: [this.redirectUri],
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          token_endpoint_auth_method: "client_secret_basic",
        },
      ],
      claims: {
        openid: ["sub"],
        profile: ["preferred_username", "name"],
        email: ["email"],
        groups: ["groups"],
      },
      conformIdTokenClaims: false,
      jwks: { keys: [{ ...signingKey, kid: "test", use: "sig", alg: "RS256" }] },
      features: { devInteractions: { enabled: false } },
      pkce: { required: () => true },
      issueRefreshToken: async () => true,
      ttl: { AccessToken: 3600, IdToken: 3600, RefreshToken: 86_400, Grant: 86_400, Session: 86_400 },
      findAccount: async (_ctx, id) => {
        const a = this.accounts.get(id);
        if (!a) return undefined;
        return {
          accountId: id,
          claims: async () => {
            const { id: sub, ...rest } = this.accounts.get(id) ?? a;
            return { sub, ...rest };
          },
        };
      },
    };
    this.provider = new Provider(this.issuer, config);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.failWith !== undefined) {
      res.statusCode = this.failWith;
      res.end("provider outage");
      return;
    }
    const url = new URL(req.url ?? "/", this.issuer);
    if (url.pathname === "/auth") this.authRequests.push(url);
    if (!url.pathname.startsWith("/interaction/")) {
      this.provider.callback()(req, res);
      return;
    }
    const details = await this.provider.interactionDetails(req, res);
    const accountId = this.nextLogin;
    const grant = new this.provider.Grant({ accountId, clientId: String(details.params.client_id) });
    grant.addOIDCScope(String(details.params.scope));
    const grantId = await grant.save();
    await this.provider.interactionFinished(
      req,
      res,
      { login: { accountId }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  }

  /** Stops listening. */
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

/** A browser for the IdP leg: follows redirects by hand, keeping cookies per origin, until `stopAt` matches. */
export async function followRedirects(start: string, stopAt: (url: string) => boolean): Promise<string> {
  const jars = new Map<string, Map<string, string>>();
  let url = start;
  for (let hop = 0; hop < 20; hop++) {
    if (stopAt(url)) return url;
    const origin = new URL(url).origin;
    const jar = jars.get(origin) ?? new Map<string, string>();
    jars.set(origin, jar);
    const headers: Record<string, string> = {};
    if (jar.size > 0) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const res = await fetch(url, { redirect: "manual", headers });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const eq = pair.indexOf("=");
      jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    const next = res.headers.get("location");
    if (!next) throw new Error(`no redirect from ${url}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer().catch(() => {});
    url = new URL(next, url).href;
  }
  throw new Error("too many redirects");
}
