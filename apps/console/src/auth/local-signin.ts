/**
 * Local-mode sign-in (spec §5.2, §5.5): budgets first (per username per minute, 20x per address across all
 * usernames, IPv6 per /64; right or wrong attempts alike), then the argon2id check, then a session. Hashes made
 * with older parameters are rewritten at a successful sign-in. Unknown users and disabled users answer like a
 * wrong password.
 */
import { InvalidInputError, RateLimitedError, UnauthenticatedError } from "../errors.ts";
import { localSubject } from "../store/sql-store.ts";
import type { Store, UserRecord } from "../store/store.ts";
import { addressBudgetKey } from "./client-address.ts";
import { hashPassword, needsRehash, verifyPassword } from "./password.ts";
import { type Budget, type BudgetFactory, inProcessBudgets } from "./rate-limit.ts";
import type { NewSession, SessionManager } from "./sessions.ts";

/** Per-address budget multiple of the per-username budget (spec §5.5). */
export const ADDRESS_BUDGET_FACTOR = 20;
const MINUTE = 60_000;

/** A successful sign-in. */
export interface SignedIn {
  user: UserRecord;
  session: NewSession;
}

/** Which budget refused an attempt (label of `svc_console_rate_limited_total`). */
export type LoginLimit = "login-username" | "login-address";

/** Dependencies of LocalSignIn. */
export interface LocalSignInDeps {
  store: Store;
  sessions: SessionManager;
  loginPerMinute: number;
  now: () => number;
  /** where budgets live; default in-process */
  budgets?: BudgetFactory;
  onLimited?: (limit: LoginLimit) => void;
}

/** Local username/password sign-in with its budgets. */
export class LocalSignIn {
  private readonly perUser: Budget;
  private readonly perAddress: Budget;
  private dummyHash: Promise<string> | undefined;

  constructor(private readonly deps: LocalSignInDeps) {
    const make = deps.budgets ?? inProcessBudgets(deps.now);
    this.perUser = make("login-username", deps.loginPerMinute, MINUTE);
    this.perAddress = make("login-address", deps.loginPerMinute * ADDRESS_BUDGET_FACTOR, MINUTE);
  }

  /**
   * Spends one attempt of `username` from `address`: RateLimitedError when either budget is spent. Also used by
   * password change (same budget).
   */
  async spendAttempt(username: string, address: string): Promise<void> {
    const byAddr = await this.perAddress.spend(addressBudgetKey(address));
    if (!byAddr.ok) {
      this.deps.onLimited?.("login-address");
      throw new RateLimitedError(
        "too many sign-in attempts from this address",
        Math.ceil(byAddr.retryAfterMs / 1000),
      );
    }
    const byUser = await this.perUser.spend(username.toLowerCase());
    if (!byUser.ok) {
      this.deps.onLimited?.("login-username");
      throw new RateLimitedError(
        "too many sign-in attempts for this username",
        Math.ceil(byUser.retryAfterMs / 1000),
      );
    }
  }

  /** Signs in: RateLimitedError, InvalidInputError (empty fields), UnauthenticatedError (wrong credentials). */
  async signIn(username: string, password: string, address: string): Promise<SignedIn> {
    if (username === "" || password === "") throw new InvalidInputError("username and password are required");
    await this.spendAttempt(username, address);
    const user = await this.deps.store.getUserByUsername(username);
    if (!user) {
      this.dummyHash ??= hashPassword("timing equaliser, never a real password");
      await verifyPassword(await this.dummyHash, password);
      throw new UnauthenticatedError("invalid username or password");
    }
    const ok = await verifyPassword(user.passwordHash, password);
    if (!ok || !user.enabled) throw new UnauthenticatedError("invalid username or password");
    if (needsRehash(user.passwordHash))
      await this.deps.store.setPasswordHash(user.id, await hashPassword(password), 0);
    const session = await this.deps.sessions.create(localSubject(user.id), user.username, []);
    return { user, session };
  }
}
