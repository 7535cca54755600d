/**
 * What a principal may do, as the API and the live socket ask it: its bindings and the custom roles read from the
 * store (none without one, and none for anonymous or token principals), resolved by rbac/resolve.ts. Within one
 * HTTP request the answer is read once.
 */
import type { FastifyRequest } from "fastify";
import type { AuthCache } from "../auth/auth-cache.ts";
import type { Principal } from "../auth/principal.ts";
import type { ConsoleConfig } from "../config/schema.ts";
import type { Store } from "../store/store.ts";
import { type Access, resolveAccess } from "./resolve.ts";

export class AccessLoader {
  readonly #perRequest = new WeakMap<FastifyRequest, Promise<Access>>();

  constructor(
    private readonly auth: ConsoleConfig["auth"],
    private readonly store: Store | undefined,
    /** keeps resolved access for a short while (revocations empty it) */
    private readonly cache?: AuthCache,
  ) {}

  /** The access of `p` making `req`, read once per request. */
  forRequest(req: FastifyRequest, p: Principal): Promise<Access> {
    let got = this.#perRequest.get(req);
    if (!got) {
      got = this.load(p);
      this.#perRequest.set(req, got);
    }
    return got;
  }

  /** The access of `p` now. */
  async load(p: Principal): Promise<Access> {
    const policy = {
      anonymousRole: this.auth.anonymous.role,
      defaultRole: this.auth.defaultRole,
      groupRoles: this.auth.groupRoles,
    };
    if (!this.store || p.kind === "anonymous" || p.kind === "token") return resolveAccess(p, policy, [], []);
    const store = this.store;
    const read = async () => {
      const subjects = [p.subject, ...p.groups.map((g) => `group:${g}`)];
      const [bindings, custom] = await Promise.all([
        store.listBindingsFor(subjects),
        store.listCustomRoles(),
      ]);
      return resolveAccess(p, policy, bindings, custom);
    };
    const c = this.cache;
    if (!c) return read();
    const got = await c.through(c.access, JSON.stringify([p.kind, p.subject, p.groups]), read);
    return got ?? read();
  }
}
