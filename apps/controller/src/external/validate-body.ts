import { jsonDepthExceeds, MAX_JSON_DEPTH } from "../api/json-body.ts";
import {
  EXTERNAL_CHECK_TYPES,
  EXTERNAL_TARGET_KINDS,
  type ExternalCheckSpec,
  type ExternalCheckType,
  type ExternalTargetKind,
} from "./spec.ts";

/** Longest target address accepted (matches the console's definition limit, spec §8.1). */
export const MAX_ADDRESS_BYTES = 2048;

export type BodyResult =
  | { ok: true; agents: Map<string, ExternalCheckSpec[]> }
  | { ok: false; reason: string };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

class Invalid extends Error {}
function fail(path: string, why: string): never {
  throw new Invalid(`${path}: ${why}`);
}

/**
 * Validates a PUT /api/v1/external-checks body (already JSON-parsed): `{ "agents": { id: [spec, ...] } }`.
 * All or nothing: the first bad spec fails the whole body, with a reason naming its path. Rules per spec:
 * - `definitionId` non-empty string; `checkType` one of tcp|icmp|dns|http;
 * - `target.name` non-empty string (it becomes the `target` metric label), `target.kind` host|url,
 *   `target.address` non-empty string of at most 2048 bytes, `target.port` integer 0-65535 (0 = default);
 * - `http` needs kind `url` with an http(s) URL address; the other types need kind `host`;
 * - `intervalNs`, `timeoutNs` positive safe integers;
 * - `params` absent/null (= {}), an object, or a string holding a JSON object; anything else is unparseable;
 * - `dns` needs `params.query`, a non-empty string: the name asked of the target (the target is the resolver).
 */
export function validateExternalChecksBody(body: unknown): BodyResult {
  try {
    if (!isObj(body)) fail("body", "must be a JSON object");
    if (!isObj(body.agents)) fail("agents", "must be an object mapping agent id to an array of specs");
    const agents = new Map<string, ExternalCheckSpec[]>();
    for (const [id, list] of Object.entries(body.agents)) {
      const path = `agents[${JSON.stringify(id)}]`;
      if (id === "") fail(path, "agent id must not be empty");
      if (!Array.isArray(list)) fail(path, "must be an array of specs");
      agents.set(
        id,
        list.map((s, i) => validateSpec(s, `${path}[${i}]`)),
      );
    }
    return { ok: true, agents };
  } catch (err) {
    if (err instanceof Invalid) return { ok: false, reason: err.message };
    throw err;
  }
}

function validateSpec(s: unknown, path: string): ExternalCheckSpec {
  if (!isObj(s)) fail(path, "must be an object");
  const definitionId = nonEmptyString(s.definitionId, `${path}.definitionId`);
  if (!EXTERNAL_CHECK_TYPES.includes(s.checkType as ExternalCheckType)) {
    fail(
      `${path}.checkType`,
      `must be one of ${EXTERNAL_CHECK_TYPES.join(", ")}; got ${JSON.stringify(s.checkType)}`,
    );
  }
  const checkType = s.checkType as ExternalCheckType;
  const t = s.target;
  if (!isObj(t)) fail(`${path}.target`, "must be an object with name, kind, address, port");
  const name = nonEmptyString(t.name, `${path}.target.name`);
  if (!EXTERNAL_TARGET_KINDS.includes(t.kind as ExternalTargetKind)) {
    fail(`${path}.target.kind`, `must be host or url; got ${JSON.stringify(t.kind)}`);
  }
  const kind = t.kind as ExternalTargetKind;
  const address = nonEmptyString(t.address, `${path}.target.address`);
  if (Buffer.byteLength(address) > MAX_ADDRESS_BYTES)
    fail(`${path}.target.address`, "longer than 2048 bytes");
  const port = t.port ?? 0;
  if (!Number.isInteger(port) || (port as number) < 0 || (port as number) > 65535) {
    fail(`${path}.target.port`, `must be an integer 0-65535; got ${JSON.stringify(t.port)}`);
  }
  if (checkType === "http") {
    if (kind !== "url") fail(`${path}.target.kind`, "http checks need a url target");
    if (!isHttpUrl(address)) fail(`${path}.target.address`, "must be an http or https URL");
  } else if (kind !== "host") {
    fail(`${path}.target.kind`, `${checkType} checks need a host target`);
  }
  const intervalNs = positiveInt(s.intervalNs, `${path}.intervalNs`);
  const timeoutNs = positiveInt(s.timeoutNs, `${path}.timeoutNs`);
  const params = parseParams(s.params, `${path}.params`);
  if (checkType === "dns") nonEmptyString(params.query, `${path}.params.query`);
  return {
    definitionId,
    target: { name, kind, address, port: port as number },
    checkType,
    intervalNs,
    timeoutNs,
    params,
  };
}

function nonEmptyString(v: unknown, path: string): string {
  if (typeof v !== "string" || v === "") fail(path, "must be a non-empty string");
  return v;
}

function positiveInt(v: unknown, path: string): number {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v <= 0) {
    fail(path, `must be a positive integer (nanoseconds); got ${JSON.stringify(v)}`);
  }
  return v;
}

function parseParams(v: unknown, path: string): Obj {
  if (v === undefined || v === null) return {};
  if (isObj(v)) return v;
  if (typeof v === "string") {
    if (v.trim() === "") return {};
    if (jsonDepthExceeds(v, MAX_JSON_DEPTH))
      fail(path, `unparseable: nested deeper than ${MAX_JSON_DEPTH} levels`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(v);
    } catch {
      fail(path, "unparseable: not valid JSON");
    }
    if (isObj(parsed)) return parsed;
  }
  fail(path, "unparseable: must be a JSON object");
}

function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
}
