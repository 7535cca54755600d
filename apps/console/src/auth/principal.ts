/** Who is calling: the result of authentication, before roles are resolved. */

/** How the caller was identified. */
export type PrincipalKind = "anonymous" | "session" | "header" | "token";

/** An authenticated (or anonymous) caller. */
export interface Principal {
  kind: PrincipalKind;
  /** identity string: `local:<id>`, `oidc:<sub>`, `header:<name>`, `token:<id>`; "" for anonymous */
  subject: string;
  /** label only, never identity */
  display: string;
  groups: string[];
  /** for kind "session": the stored session's id hash and its CSRF token */
  sessionIdHash?: string;
  csrf?: string;
}

/** The anonymous caller of `auth.mode: anonymous`. */
export const ANONYMOUS: Principal = Object.freeze({
  kind: "anonymous",
  subject: "",
  display: "anonymous",
  groups: [],
});
