/**
 * External targets (spec §2.6, §2.12, §7, §8.1; paths are the console's choice). A target is a host[:port] or an
 * http(s) URL that check definitions probe. Reading needs `targets:read`; writing needs `targets:read` too: the
 * operator's "read/manage targets" grant of §5.3 has no permission of its own, and every built-in role holding
 * `targets:read` manages targets (docs/decisions.md, "Console operations"). Every write is audited; all need the
 * database.
 */
import { z } from "zod";
import { errors } from "./errors.ts";
import { route } from "./route.ts";
import { nameText, text } from "./strings.ts";

/** Longest target address, in UTF-8 bytes (spec §8.1). */
export const TARGET_ADDRESS_MAX_BYTES = 2048;

/** A target as the API shows it. */
export const Target = z
  .object({
    id: z.string(),
    name: z.string().describe("the `target` label of the external-check series"),
    kind: z.enum(["host", "url"]).describe("url for an http(s) URL, host for host[:port]"),
    address: z.string().describe("the host (kind host) or the whole URL (kind url)"),
    port: z.number().int().describe("0 = the check type's default"),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "Target" });
export type Target = z.infer<typeof Target>;

/** An address of at most 2048 UTF-8 bytes. */
export const targetAddress = text(TARGET_ADDRESS_MAX_BYTES)
  .min(1)
  .refine((s) => new TextEncoder().encode(s).length <= TARGET_ADDRESS_MAX_BYTES, {
    message: `must be at most ${TARGET_ADDRESS_MAX_BYTES} bytes`,
  });

/**
 * Body of a create or an edit. `address` is `host`, `host:port`, `[v6]:port` or an http(s) URL; the kind and port
 * are read from it (422 when it is neither).
 */
export const TargetInput = z.strictObject({
  name: nameText(128)
    .min(1)
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "letters, digits, '.', '_', '-'"),
  address: targetAddress,
});
export type TargetInput = z.infer<typeof TargetInput>;

/** Path parameters naming a target; unknown and malformed ids are both 404 (spec §4.4). */
export const TargetIdParams = z.object({ id: text(64) });

export const listTargets = route({
  name: "listTargets",
  method: "GET",
  path: "/api/v1/targets",
  tag: "targets",
  summary: "Every target, by name",
  description: "503 without a database.",
  access: "targets:read",
  spec: false,
  responses: { 200: z.object({ targets: z.array(Target) }), ...errors(401, 403, 503) },
});

export const getTarget = route({
  name: "getTarget",
  method: "GET",
  path: "/api/v1/targets/{id}",
  tag: "targets",
  summary: "One target",
  description: "404 for an unknown or malformed id.",
  access: "targets:read",
  spec: false,
  params: TargetIdParams,
  responses: { 200: Target, ...errors(401, 403, 404, 503) },
});

export const createTarget = route({
  name: "createTarget",
  method: "POST",
  path: "/api/v1/targets",
  tag: "targets",
  summary: "Creates a target",
  description:
    "400 for an address over 2048 bytes; 409 for a name another target has; 422 for an address that is neither " +
    "host[:port] nor an http(s) URL. Audited.",
  access: "targets:read",
  spec: false,
  body: TargetInput,
  example: { name: "node-3-agent", address: "198.18.1.13:8080" },
  responses: { 201: Target, ...errors(400, 401, 403, 409, 422, 503) },
});

export const updateTarget = route({
  name: "updateTarget",
  method: "PUT",
  path: "/api/v1/targets/{id}",
  tag: "targets",
  summary: "Replaces a target's name and address",
  description:
    "404 for an unknown or malformed id; 422 when an enabled check definition on it could no longer run " +
    "(an http check on a host target, or the reverse). Audited.",
  access: "targets:read",
  spec: false,
  params: TargetIdParams,
  body: TargetInput,
  example: { name: "node-3-agent", address: "198.18.1.13:9090" },
  responses: { 200: Target, ...errors(400, 401, 403, 404, 409, 422, 503) },
});

export const deleteTarget = route({
  name: "deleteTarget",
  method: "DELETE",
  path: "/api/v1/targets/{id}",
  tag: "targets",
  summary: "Deletes a target",
  description: "404 for an unknown or malformed id; 409 while a check definition uses it. Audited.",
  access: "targets:read",
  spec: false,
  params: TargetIdParams,
  responses: { 204: null, ...errors(401, 403, 404, 409, 503) },
});
