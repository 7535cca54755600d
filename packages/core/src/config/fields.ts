/**
 * Leaf validators for config schemas (this package's and the console's; exported as `configFields`). Each one
 * accepts `unknown` and reports a single custom issue whose message reads well after the key path:
 * "must be 1-100, got 0". Build further validators with `leaf` and `fail`.
 */
import * as z from "zod/mini";
import type * as core from "zod/v4/core";
import en from "zod/v4/locales/en.js";
import { parseDuration } from "./duration.ts";
import { parseCidr, parseIpEndpoint, unusableAddressReason } from "./net.ts";

// zod/mini, not zod: classic zod gives every schema object dozens of methods of its own. The agent validates its
// configuration at start and on a change, and with classic zod that cost it, for as long as it ran, 1.5 MiB more
// live heap and 2.5 MiB more working set (bench/agent-parts, every agent module loaded: 9.3 -> 6.8 MiB above a bare
// node). Messages not written here (none the schemas reach today) read as zod's English.
z.config(en());

/** Renders a rejected input value for an error message. */
export function show(v: unknown): string {
  if (v === undefined) return "nothing";
  if (typeof v === "string") return JSON.stringify(v);
  if (v !== null && typeof v === "object") return Array.isArray(v) ? "a list" : "a mapping";
  return String(v);
}

/** A refusal: `fail` is the whole issue message. */
export type Fail = { fail: string };

/** Checks a raw value: the accepted (possibly converted) value, or a Fail. */
export type Check<T> = (v: unknown) => T | Fail;

/** A schema with `.default(value)`: the value used when the key is missing (as classic zod's method). */
export type Defaultable<S extends core.$ZodType> = S & {
  default(value: core.util.NoUndefined<core.output<S>>): Defaultable<z.ZodMiniDefault<S>>;
};

/** Gives `schema` a `.default(value)` method (zod/mini has the function `_default` only). */
export function defaultable<S extends core.$ZodType>(schema: S): Defaultable<S> {
  return Object.assign(schema, {
    default: (value: core.util.NoUndefined<core.output<S>>) => defaultable(z._default(schema, value)),
  });
}

/** A zod schema of `unknown` that runs `check`, reporting a Fail as one custom issue with its message. */
export function leaf<T>(check: Check<T>) {
  return defaultable(
    z.pipe(
      z.unknown(),
      z.transform((v: unknown, ctx): T => {
        const r = check(v);
        if (r !== null && typeof r === "object" && "fail" in r && !Array.isArray(r)) {
          ctx.issues.push({ code: "custom", message: r.fail, input: v });
          return z.NEVER;
        }
        return r as T;
      }),
    ),
  );
}

/** A Fail reading "<rule>, got <shown value>". */
export const fail = (rule: string, v: unknown): Fail => ({ fail: `${rule}, got ${show(v)}` });

/** Integer in [min, max]; the rule text defaults to "must be min-max". */
export function int(min: number, max: number, rule = `must be ${min}-${max}`) {
  return leaf<number>((v) =>
    typeof v === "number" && Number.isInteger(v) && v >= min && v <= max ? v : fail(rule, v),
  );
}

/** 0, or an integer in [min, max]. */
export function zeroOrInt(min: number, max: number) {
  return leaf<number>((v) =>
    typeof v === "number" && Number.isInteger(v) && (v === 0 || (v >= min && v <= max))
      ? v
      : fail(`must be 0 or ${min}-${max}`, v),
  );
}

/** A TCP/UDP port, 1-65535. */
export const port = () => int(1, 65535);

/** true or false. */
export const bool = () =>
  leaf<boolean>((v) => (typeof v === "boolean" ? v : fail("must be true or false", v)));

/** Any string; `nonEmpty` refuses "". */
export function str(nonEmpty = false) {
  return leaf<string>((v) => {
    if (typeof v !== "string") return fail("must be a string", v);
    return nonEmpty && v === "" ? fail("must not be empty", v) : v;
  });
}

/** String matching `re`, described by `rule`. */
export function pattern(re: RegExp, rule: string) {
  return leaf<string>((v) => (typeof v === "string" && re.test(v) ? v : fail(rule, v)));
}

/** One of `values`; with `anyCase` the input is lower-cased first. */
export function oneOf<const T extends string>(values: readonly T[], anyCase = false) {
  return leaf<T>((v) => {
    const s = typeof v === "string" && anyCase ? v.toLowerCase() : v;
    return values.includes(s as T) ? (s as T) : fail(`must be one of ${values.join("|")}`, v);
  });
}

/** Go-style duration string ("5s", "1m30s"; "0" and "0s" mean zero) to milliseconds, at least `minMs`. */
export function duration(minMs = 0, rule?: string) {
  return leaf<number>((v) => {
    const ms = v === 0 ? 0 : typeof v === "string" ? parseDuration(v) : undefined;
    if (ms === undefined) return fail('must be a duration with a unit such as "5s" or "250ms"', v);
    return ms < minMs ? fail(rule ?? `must be at least ${minMs}ms`, v) : ms;
  });
}

/** Duration that is 0 or at least 1ms. */
export const zeroOrDuration = () =>
  leaf<number>((v) => {
    const ms = v === 0 ? 0 : typeof v === "string" ? parseDuration(v) : undefined;
    if (ms === undefined) return fail('must be a duration with a unit such as "5s" or "250ms"', v);
    return ms === 0 || ms >= 1 ? ms : fail("must be 0 or at least 1ms", v);
  });

/** An IP literal usable as an advertised address, or "" (unset). */
export const advertiseAddress = () =>
  leaf<string>((v) => {
    if (typeof v !== "string") return fail("must be an IP literal", v);
    if (v === "") return v;
    const why = unusableAddressReason(v);
    if (why === "not an IP literal") return fail("must be an IP literal", v);
    return why ? fail(`must not be a ${why} address`, v) : v;
  });

/** CIDR with explicit prefix length, IPv4 or IPv6. */
export const cidr = () =>
  leaf<string>((v) =>
    typeof v === "string" && parseCidr(v) ? v : fail("must be a CIDR with a prefix length (10.0.0.0/8)", v),
  );

/** DNS resolver: "ip", "ip:port" or "[v6]:port", port 1-65535. */
export const resolver = () =>
  leaf<string>((v) => {
    if (typeof v !== "string") return fail("must be an IP or IP:port", v);
    const r = parseIpEndpoint(v, 53);
    return "error" in r ? fail(r.error, v) : v;
  });

/** Absolute http:// or https:// URL. */
export const httpUrl = () =>
  leaf<string>((v) => {
    if (v === undefined) return { fail: "is required" };
    if (typeof v !== "string") return fail("must be an absolute http(s) URL", v);
    try {
      const u = new URL(v);
      if (u.protocol === "http:" || u.protocol === "https:") return v;
    } catch {
      // not a URL
    }
    return fail("must be an absolute http(s) URL", v);
  });

/** Source of a JavaScript regular expression; "" allowed. */
export const regexSource = () =>
  leaf<string>((v) => {
    if (typeof v !== "string") return fail("must be a regular expression string", v);
    try {
      new RegExp(v);
      return v;
    } catch (e) {
      return { fail: `must compile as a regular expression (${(e as Error).message})` };
    }
  });

/** A list of `item`; null counts as an empty list. */
export function list<T extends core.$ZodType>(item: T) {
  return defaultable(
    z.pipe(
      z.transform((v: unknown) => (v === null ? [] : v)),
      z.array(item, { error: (iss) => `must be a list, got ${show(iss.input)}` }),
    ),
  );
}

/** A mapping of string keys to `item`; null counts as empty. */
export function record<T extends core.$ZodType>(item: T) {
  return defaultable(
    z.pipe(
      z.transform((v: unknown) => (v === null ? {} : v)),
      z.record(z.string(), item, { error: (iss) => `must be a mapping, got ${show(iss.input)}` }),
    ),
  );
}

/** A strict mapping: unknown keys fail. Missing or null means "all defaults". */
export function section<S extends core.$ZodLooseShape>(shape: S) {
  const object = z.strictObject(shape, {
    error: (iss) => (iss.code === "invalid_type" ? `must be a mapping, got ${show(iss.input)}` : undefined),
  });
  return defaultable(
    z.pipe(
      z.transform((v: unknown) => (v === null ? undefined : v)),
      z.prefault(object, {} as core.input<typeof object>),
    ),
  );
}
