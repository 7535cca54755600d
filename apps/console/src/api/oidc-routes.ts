/**
 * OIDC sign-in routes (spec §4.3, §5.7, §7), 404 unless `auth.mode` is oidc:
 *   GET /api/v1/auth/oidc/start?returnTo=/path -> 302 to the provider; sets the sealed state cookie (5 minutes)
 *   GET /api/v1/auth/oidc/callback             -> 302 to returnTo with session and CSRF cookies
 * Each has a per-address budget (429). A refused callback answers 401 (502 when the provider is unreachable or
 * failing) and is audited as an `error` row with no subject, at most AUDIT_REFUSALS_PER_MINUTE per address; a
 * sign-in is audited as `allowed` for `oidc:<sub>`.
 */
import * as c from "@svc/contract";
import type { FastifyReply, FastifyRequest } from "fastify";
import { addressBudgetKey } from "../auth/client-address.ts";
import { oidcStateCookieName, parseCookies } from "../auth/cookies.ts";
import { type OidcClient, OidcRefusal } from "../auth/oidc/client.ts";
import { OIDC_STATE_MAX_AGE_MS, safeReturnPath } from "../auth/oidc/state.ts";
import type { Budget, BudgetFactory } from "../auth/rate-limit.ts";
import type { SessionManager } from "../auth/sessions.ts";
import type { ConsoleConfig } from "../config/schema.ts";
import { NotFoundError, RateLimitedError, UnauthenticatedError, UpstreamError } from "../errors.ts";
import type { ConsoleMetrics } from "../metrics.ts";
import type { NewAuditRow } from "../store/store.ts";
import type { AddRoute } from "./register.ts";

/** Refused callbacks audited per client address per minute (spec §5.7). */
export const AUDIT_REFUSALS_PER_MINUTE = 120;
/** Start and callback budgets per address per minute, as a multiple of `rateLimit.loginPerMinute`. */
export const OIDC_BUDGET_FACTOR = 20;
const MINUTE = 60_000;

/** Dependencies of the OIDC routes. */
export interface OidcRouteDeps {
  config: ConsoleConfig;
  client?: OidcClient;
  sessions?: SessionManager;
  budgets: BudgetFactory;
  audit: (row: Omit<NewAuditRow, "at">) => Promise<void>;
  metrics: ConsoleMetrics;
  setSessionCookies: (reply: FastifyReply, sessionId: string, csrf: string) => void;
  /** appends one Set-Cookie value: name, value, Max-Age seconds (0 clears), HttpOnly */
  setCookie: (reply: FastifyReply, name: string, value: string, maxAgeSeconds: number) => void;
}

/** Registers the OIDC routes. */
export function addOidcRoutes(add: AddRoute, deps: OidcRouteDeps): void {
  const perMinute = deps.config.rateLimit.loginPerMinute * OIDC_BUDGET_FACTOR;
  const startBudget = deps.budgets("oidc-start", perMinute, MINUTE);
  const callbackBudget = deps.budgets("oidc-callback", perMinute, MINUTE);
  const auditBudget = deps.budgets("oidc-refusal-audit", AUDIT_REFUSALS_PER_MINUTE, MINUTE);
  const stateCookie = oidcStateCookieName(deps.config.auth.session.cookieName);

  const oidc = {
    available: () =>
      deps.config.auth.mode === "oidc" && deps.client !== undefined && deps.sessions !== undefined,
  };
  const ready = (): { client: OidcClient; sessions: SessionManager } => {
    if (!deps.client || !deps.sessions) throw new NotFoundError();
    return { client: deps.client, sessions: deps.sessions };
  };
  const spend = async (budget: Budget, req: FastifyRequest, limit: string) => {
    const got = await budget.spend(addressBudgetKey(req.clientAddr));
    if (got.ok) return;
    deps.metrics.rateLimited.inc({ limit });
    throw new RateLimitedError(
      "too many sign-in attempts from this address",
      Math.ceil(got.retryAfterMs / 1000),
    );
  };

  add(
    c.oidcStart,
    async ({ req, reply, query }) => {
      const { client } = ready();
      await spend(startBudget, req, "oidc-start");
      const returnTo = safeReturnPath(query.returnTo);
      let begun: { url: string; sealed: string };
      try {
        begun = await client.begin(returnTo);
      } catch (e) {
        if (e instanceof OidcRefusal) throw new UpstreamError(e.reason);
        throw e;
      }
      deps.setCookie(reply, stateCookie, begun.sealed, OIDC_STATE_MAX_AGE_MS / 1000);
      return reply.redirect(begun.url, 302);
    },
    oidc,
  );

  add(
    c.oidcCallback,
    async ({ req, reply }) => {
      const { client, sessions } = ready();
      const action = `GET ${c.OIDC_CALLBACK_PATH}`;
      const refused = async (reason: string) => {
        deps.metrics.signIns.inc({ mode: "oidc", result: "denied" });
        if ((await auditBudget.spend(addressBudgetKey(req.clientAddr))).ok) {
          // best effort: the refusal stands whether or not its row is written
          await deps
            .audit({
              subject: null,
              subjectDisplay: "",
              action,
              outcome: "error",
              remoteAddr: req.clientAddr,
              detail: { reason },
            })
            .catch(() => undefined);
        }
      };
      try {
        await spend(callbackBudget, req, "oidc-callback");
      } catch (e) {
        await refused("rate limited");
        throw e;
      }
      const sealed = parseCookies(req.headers.cookie).get(stateCookie);
      deps.setCookie(reply, stateCookie, "", 0); // one use, whatever happens
      let done: Awaited<ReturnType<OidcClient["finish"]>>;
      try {
        done = await client.finish(new URL(req.url, "http://callback.invalid"), sealed);
      } catch (e) {
        if (!(e instanceof OidcRefusal)) throw e;
        await refused(e.reason);
        throw e.upstream ? new UpstreamError(e.reason) : new UnauthenticatedError(e.reason);
      }
      const { identity, tokens } = done;
      const session = await sessions.create(identity.subject, identity.display, identity.groups, {
        oidc: tokens,
      });
      try {
        await deps.audit({
          subject: identity.subject,
          subjectDisplay: identity.display,
          action,
          outcome: "allowed",
          remoteAddr: req.clientAddr,
        });
      } catch (e) {
        // a sign-in whose row cannot be written does not happen: its session ends at once
        await sessions.end(session.record.idHash);
        throw e;
      }
      deps.metrics.signIns.inc({ mode: "oidc", result: "success" });
      deps.setSessionCookies(reply, session.id, session.csrf);
      return reply.redirect(done.returnTo, 302);
    },
    oidc,
  );
}
