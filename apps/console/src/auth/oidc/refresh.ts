/**
 * OIDC session refresh (spec §5.7): a session whose access token expires within REFRESH_AHEAD_MS is refreshed when
 * presented (one refresh per session at a time). A refresh with an ID token replaces the session's groups; without
 * one the groups stay. `invalid_grant` or another 4xx (except 408, 429) deletes the session (the caller gets 401);
 * unreachable, timeout, 5xx, 408 and 429 leave it in place and the request goes on.
 */
import type { SessionRecord } from "../../store/store.ts";
import type { SessionManager } from "../sessions.ts";
import type { OidcClient, OidcSessionTokens } from "./client.ts";

/** Refresh this long before the access token expires. */
export const REFRESH_AHEAD_MS = 120_000;

/** Where OIDC tokens live in a session's data. */
export function oidcTokensOf(data: Record<string, unknown>): OidcSessionTokens {
  const o = data.oidc;
  if (o === null || typeof o !== "object") return {};
  const { refreshToken, accessExpiresAt } = o as Record<string, unknown>;
  return {
    refreshToken: typeof refreshToken === "string" ? refreshToken : undefined,
    accessExpiresAt: typeof accessExpiresAt === "number" ? accessExpiresAt : undefined,
  };
}

/** Logging surface of the refresher. */
export interface RefreshLog {
  warn(obj: object, msg?: string): void;
}

/** Refreshes OIDC sessions as they are presented. */
export class OidcRefresher {
  private readonly inFlight = new Map<string, Promise<boolean>>();

  constructor(
    private readonly client: OidcClient,
    private readonly sessions: SessionManager,
    private readonly now: () => number,
    private readonly log: RefreshLog,
  ) {}

  /** Refreshes `r` when due; resolves false when the session was ended. Updates `r` in place. */
  async check(r: SessionRecord): Promise<boolean> {
    const t = oidcTokensOf(r.data);
    if (
      !t.refreshToken ||
      t.accessExpiresAt === undefined ||
      t.accessExpiresAt - this.now() > REFRESH_AHEAD_MS
    )
      return true;
    let job = this.inFlight.get(r.idHash);
    if (!job) {
      job = this.run(r, t.refreshToken).finally(() => this.inFlight.delete(r.idHash));
      this.inFlight.set(r.idHash, job);
    }
    return job;
  }

  private async run(r: SessionRecord, refreshToken: string): Promise<boolean> {
    const out = await this.client.refresh(refreshToken);
    if (out.kind === "ended") {
      await this.sessions.end(r.idHash);
      return false;
    }
    if (out.kind === "kept") {
      this.log.warn({ subject: r.subject, reason: out.reason }, "OIDC refresh failed; session kept");
      return true;
    }
    if (out.groups) r.groups = out.groups;
    r.data = { ...r.data, oidc: out.tokens };
    await this.sessions.update(r.idHash, r.groups, r.data);
    return true;
  }
}
