/**
 * Leaf validators for the console config schema. Each accepts `unknown` and reports one custom issue whose message
 * reads well after the key path ("must be 1-65535, got 0"). Local copies of the shapes used by
 * packages/core/src/config/fields.ts, which @svc/core does not export.
 */
import { parseCidr, parseDuration } from "@svc/core";
import { z } from "zod";

/** Renders a rejected input value for an error message. */
export function show(v: unknown): string {
  if (v === undefined) return "nothing";
  if (typeof v === "string") return JSON.stringify(v);
  if (v !== null && typeof v === "object") return Array.isArray(v) ? "a list" : "a mapping";
  return String(v);
}

type Fail = { fail: string };
type Check<T> = (v: unknown) => T | Fail;

function isFail(r: unknown): r is Fail {
  return r !== null && typeof r === "object" && !Array.isArray(r) && "fail" in r;
}

function leaf<T>(check: Check<T>) {
  return z.unknown().transform((v, ctx): T => {
    const r = check(v);
    if (isFail(r)) {
      ctx.addIssue({ code: "custom", message: r.fail, input: v });
      return z.NEVER;
    }
    return r;
  });
}

const fail = (rule: string, v: unknown): Fail => ({ fail: `${rule}, got ${show(v)}` });

/** Integer in [min, max]. */
export function int(min: number, max: number, rule = `must be ${min}-${max}`) {
  return leaf<number>((v) =>
    typeof v === "number" && Number.isInteger(v) && v >= min && v <= max ? v : fail(rule, v),
  );
}

/** A TCP port, 1-65535. */
export const port = () => int(1, 65535);

/** true or false. */
export const bool = () =>
  leaf<boolean>((v) => (typeof v === "boolean" ? v : fail("must be true or false", v)));

/** Any string. */
export const str = () => leaf<string>((v) => (typeof v === "string" ? v : fail("must be a string", v)));

/** One of `values`; with `anyCase` the input is lower-cased first. */
export function oneOf<const T extends string>(values: readonly T[], anyCase = false) {
  return leaf<T>((v) => {
    const s = typeof v === "string" && anyCase ? v.toLowerCase() : v;
    return values.includes(s as T) ? (s as T) : fail(`must be one of ${values.join("|")}`, v);
  });
}

/** Go-style duration ("5s", "1m30s"; "0" is zero) to milliseconds, at least `minMs`. */
export function duration(minMs = 0, rule?: string) {
  return leaf<number>((v) => {
    const ms = v === 0 ? 0 : typeof v === "string" ? parseDuration(v) : undefined;
    if (ms === undefined) return fail('must be a duration with a unit such as "5s" or "250ms"', v);
    return ms < minMs ? fail(rule ?? `must be at least ${minMs}ms`, v) : ms;
  });
}

/** CIDR with an explicit prefix length. */
export const cidr = () =>
  leaf<string>((v) =>
    typeof v === "string" && parseCidr(v) ? v : fail("must be a CIDR with a prefix length (10.0.0.0/8)", v),
  );

/** "" or an absolute http(s) URL; `noTrailingSlash` refuses a path ending in "/". */
export function optionalHttpUrl(noTrailingSlash = false) {
  return leaf<string>((v) => {
    if (v === "") return v;
    if (typeof v !== "string") return fail("must be an absolute http(s) URL", v);
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      return fail("must be an absolute http(s) URL", v);
    }
    if (u.protocol !== "http:" && u.protocol !== "https:") return fail("must be an absolute http(s) URL", v);
    if (noTrailingSlash && v.endsWith("/")) return fail("must not end with a slash", v);
    return v;
  });
}

/** A list of `item`; null counts as an empty list. */
export function list<T extends z.ZodType>(item: T) {
  return z.preprocess(
    (v) => (v === null ? [] : v),
    z.array(item, { error: (iss) => `must be a list, got ${show(iss.input)}` }),
  );
}

/** A mapping of string keys to `item`; null counts as empty. */
export function record<T extends z.ZodType>(item: T) {
  return z.preprocess(
    (v) => (v === null ? {} : v),
    z.record(z.string(), item, { error: (iss) => `must be a mapping, got ${show(iss.input)}` }),
  );
}

/** A strict mapping: unknown keys fail. Missing or null means "all defaults". */
export function section<S extends z.ZodRawShape>(shape: S) {
  return z.preprocess(
    (v) => (v === null ? undefined : v),
    z
      .strictObject(shape, {
        error: (iss) =>
          iss.code === "invalid_type" ? `must be a mapping, got ${show(iss.input)}` : undefined,
      })
      .prefault({} as never),
  );
}
