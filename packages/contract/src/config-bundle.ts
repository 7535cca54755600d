/**
 * Configuration bundle: export and import (spec §2.12, §7, §8.5; GET /api/v1/export is the spec's path, the
 * import path is the console's: POST /api/v1/import). A bundle carries targets, check definitions, schedules,
 * alert rules, webhook endpoints (never their secrets), maintenance windows, custom roles and role bindings; the
 * sections the caller could not read are left out and named in `omitted`.
 *
 * Items refer to each other by name, not id (ids differ between consoles): a check definition names its target,
 * a schedule its definition and that definition's target. Each exported item keeps its id so an import into the
 * console it came from updates that object even after a rename.
 *
 * Import judges every item exactly as the section's own POST or PUT judges its body (the same zod schema, the same
 * store write): an item's refusal (400, 404, 409, 422) is reported on that item and the rest go on. Bindings are
 * exported only, never imported; webhook endpoints are only updated (url, events, enabled), never created, since a
 * bundle has no signing secret. docs/decisions.md, "Configuration bundle".
 */
import { z } from "zod";
import { AlertRule, AlertRuleInput } from "./alert-rules.ts";
import { CheckInput, CheckType, SourceSelectionView } from "./checks.ts";
import { errors } from "./errors.ts";
import { MaintenanceInput, MaintenanceWindow } from "./maintenance.ts";
import type { Permission } from "./permissions.ts";
import { putRole } from "./rbac.ts";
import { route } from "./route.ts";
import { ScheduleInput, ScheduleKind } from "./schedules.ts";
import { JSON_MAX_DEPTH, jsonValueProblem, nameText, text } from "./strings.ts";
import { TargetInput } from "./targets.ts";
import { WebhookEndpoint, WebhookUpdate } from "./webhooks.ts";

/** The bundle's `format` marker. */
export const CONFIG_BUNDLE_FORMAT = "svc-config-bundle";
/** The bundle format version this console writes and reads. */
export const CONFIG_BUNDLE_VERSION = 1;
/** Largest import body, bytes (the external-checks body budget of spec §8.1: about 30,000 definitions). */
export const CONFIG_BUNDLE_MAX_BYTES = 8 * 1024 * 1024;
/** Most items one section of an imported bundle may hold. */
export const CONFIG_BUNDLE_MAX_ITEMS = 10_000;
/** Deepest nesting of objects and arrays an imported bundle may hold. */
export const CONFIG_BUNDLE_MAX_DEPTH = JSON_MAX_DEPTH;

/** The sections, in the order an import applies them (targets before the definitions naming them, ...). */
export const BUNDLE_SECTIONS = [
  "targets",
  "checks",
  "schedules",
  "alertRules",
  "maintenanceWindows",
  "webhooks",
  "roles",
  "bindings",
] as const;
export type BundleSection = (typeof BUNDLE_SECTIONS)[number];

/** The permission reading each section (spec §8.5); the caller's export leaves out the others. */
export const SECTION_READ: Readonly<Record<BundleSection, Permission>> = {
  targets: "targets:read",
  checks: "checks:read",
  schedules: "checks:read",
  alertRules: "alerts:read",
  maintenanceWindows: "maintenance:read",
  webhooks: "webhooks:manage",
  roles: "rbac:manage",
  bindings: "rbac:manage",
};

/**
 * The permission writing each section: the one its own create/update routes ask for (bindings: none, they are
 * never imported).
 */
export const SECTION_WRITE: Readonly<Record<BundleSection, Permission | null>> = {
  targets: "targets:read",
  checks: "checks:read",
  schedules: "checks:read",
  alertRules: "alerts:manage",
  maintenanceWindows: "incidents:write",
  webhooks: "webhooks:manage",
  roles: "rbac:manage",
  bindings: null,
};

const id = z.string().describe("the id in the console it came from (an import matches it first)");
const importId = text(64)
  .optional()
  .describe("matched first; absent or unknown here: matched by natural key");

/** A target: its name and its address as the target routes take it (`host`, `host:port`, `[v6]:port`, URL). */
export const BundleTarget = TargetInput.extend({ id: importId });
/** `plane` of a one-shot diagnostic (spec §4.2): only `pod`; accepted on definitions and schedules, never stored. */
const plane = z
  .literal("pod", { message: "only pod is accepted (spec §4.2)" })
  .optional()
  .describe("only `pod` (the default); not stored");
/** A check definition, naming its target. */
export const BundleCheck = CheckInput.omit({ targetId: true }).extend({
  id: importId,
  target: nameText(128).min(1).describe("the name of its target"),
  plane,
});
/** A schedule, naming its check definition and that definition's target. */
export const BundleSchedule = ScheduleInput.omit({ definitionId: true }).extend({
  id: importId,
  check: nameText(128).min(1).describe("the name of its check definition"),
  target: nameText(128).min(1).describe("the name of that definition's target"),
  plane,
});
/** An alert rule. */
export const BundleAlertRule = AlertRuleInput.extend({ id: importId });
/** A maintenance window. */
export const BundleMaintenanceWindow = MaintenanceInput.extend({ id: importId });
/** A webhook endpoint without its secret (the bundle never carries one). */
export const BundleWebhook = WebhookUpdate.omit({ secret: true }).extend({ id: importId });
/** A custom role. */
export const BundleRole = z.strictObject({
  name: putRole.params.shape.name.min(1),
  permissions: putRole.body.shape.permissions,
});
/** A role binding (exported only). */
export const BundleBinding = z.strictObject({
  subject: nameText(300),
  role: nameText(128),
  direct: z.boolean().default(false),
});

/** An exported bundle (each item as the matching Bundle* schema takes it back, plus its id). */
export const ConfigBundle = z
  .object({
    format: z.literal(CONFIG_BUNDLE_FORMAT),
    version: z.literal(CONFIG_BUNDLE_VERSION),
    exportedAt: z.string().describe("ISO 8601"),
    consoleVersion: z.string(),
    omitted: z.array(z.enum(BUNDLE_SECTIONS)).describe("sections the caller could not read"),
    targets: z.array(z.object({ id, name: z.string(), address: z.string() })).optional(),
    checks: z
      .array(
        z.object({
          id,
          name: z.string(),
          target: z.string().describe("the name of its target"),
          type: CheckType,
          params: z.record(z.string(), z.unknown()),
          sources: SourceSelectionView,
          intervalSeconds: z.number(),
          timeoutSeconds: z.number(),
          enabled: z.boolean(),
        }),
      )
      .optional(),
    schedules: z
      .array(
        z.object({
          id,
          name: z.string(),
          check: z.string().describe("the name of its check definition"),
          target: z.string().describe("the name of that definition's target"),
          kind: ScheduleKind,
          intervalSeconds: z.number(),
          enabled: z.boolean(),
        }),
      )
      .optional(),
    alertRules: z.array(AlertRule.omit({ alertName: true, createdAt: true, updatedAt: true })).optional(),
    maintenanceWindows: z
      .array(MaintenanceWindow.omit({ author: true, createdAt: true, updatedAt: true }))
      .optional(),
    webhooks: z
      .array(WebhookEndpoint.pick({ id: true, url: true, events: true, enabled: true }))
      .optional()
      .describe("never a secret"),
    roles: z.array(z.object({ name: z.string(), permissions: z.array(z.string()) })).optional(),
    bindings: z
      .array(z.object({ subject: z.string(), role: z.string(), direct: z.boolean() }))
      .optional()
      .describe("exported only; an import skips them"),
  })
  .meta({ id: "ConfigBundle" });
export type ConfigBundle = z.infer<typeof ConfigBundle>;

/** A section of an imported bundle: its items are judged one by one (a bad item is that item's error). */
const section = z.array(z.unknown()).max(CONFIG_BUNDLE_MAX_ITEMS).optional();

/** The first problem of a JSON value that no item could store, or undefined: keys, text, depth (jsonValueProblem). */
export function bundleValueProblem(v: unknown, depth = 0, path = "bundle"): string | undefined {
  return jsonValueProblem(v, path, depth, CONFIG_BUNDLE_MAX_DEPTH);
}

/** A bundle as an import takes it: the export's shape, items judged one by one, `omitted` ignored. */
export const ConfigBundleInput = z
  .strictObject({
    format: z.literal(CONFIG_BUNDLE_FORMAT),
    version: z.literal(CONFIG_BUNDLE_VERSION, {
      message: `version must be ${CONFIG_BUNDLE_VERSION} (this console reads bundle format version ${CONFIG_BUNDLE_VERSION})`,
    }),
    exportedAt: text(64).optional(),
    consoleVersion: text(64).optional(),
    omitted: z.array(z.enum(BUNDLE_SECTIONS)).max(BUNDLE_SECTIONS.length).optional().describe("ignored"),
    targets: section,
    checks: section,
    schedules: section,
    alertRules: section,
    maintenanceWindows: section,
    webhooks: section,
    roles: section,
    bindings: section.describe("ignored: bindings are never imported"),
  })
  .superRefine((b, ctx) => {
    const p = bundleValueProblem(b);
    if (p) ctx.addIssue({ code: "custom", message: p });
  });
export type ConfigBundleInput = z.infer<typeof ConfigBundleInput>;

/** What an import did (or, in a dry run, would do) with one item. */
export const IMPORT_OUTCOMES = ["create", "update", "unchanged", "skipped", "error"] as const;
export type ImportOutcome = (typeof IMPORT_OUTCOMES)[number];

/** One item's outcome. */
export const ImportItemResult = z
  .object({
    index: z.number().int().describe("position in the bundle's section"),
    key: z.string().describe("what the item is called: target name, rule name, url, role name, ..."),
    id: z.string().nullable().describe("the object written or matched here (null for an error or a skip)"),
    outcome: z.enum(IMPORT_OUTCOMES),
    status: z
      .number()
      .int()
      .nullable()
      .describe("for an error: the status its own route would answer (400, 404, 409, 422)"),
    message: z.string().nullable().describe("why an error or a skip"),
  })
  .meta({ id: "ImportItemResult" });
export type ImportItemResult = z.infer<typeof ImportItemResult>;

/** One section's outcome. */
export const ImportSectionResult = z
  .object({
    section: z.enum(BUNDLE_SECTIONS),
    state: z
      .enum(["absent", "imported", "skipped"])
      .describe("absent: not in the bundle; skipped: not imported at all (permission, bindings)"),
    warning: z.string().nullable(),
    counts: z.object({
      create: z.number().int(),
      update: z.number().int(),
      unchanged: z.number().int(),
      skipped: z.number().int(),
      error: z.number().int(),
    }),
    items: z.array(ImportItemResult),
  })
  .meta({ id: "ImportSectionResult" });
export type ImportSectionResult = z.infer<typeof ImportSectionResult>;

/** The answer of an import. */
export const ImportReport = z
  .object({
    dryRun: z.boolean(),
    sections: z.array(ImportSectionResult),
  })
  .meta({ id: "ImportReport" });
export type ImportReport = z.infer<typeof ImportReport>;

export const exportConfig = route({
  name: "exportConfig",
  method: "GET",
  path: "/api/v1/export",
  tag: "config-bundle",
  summary: "The configuration bundle: every section the caller can read",
  description:
    "Sections need targets:read (targets), checks:read (checks, schedules), alerts:read, maintenance:read, " +
    "webhooks:manage (never a secret), rbac:manage (custom roles, bindings); the others are left out and named " +
    "in `omitted`. 503 without a database.",
  access: "role",
  spec: true,
  responses: { 200: ConfigBundle, ...errors(401, 403, 503) },
});

export const importConfig = route({
  name: "importConfig",
  method: "POST",
  path: "/api/v1/import",
  tag: "config-bundle",
  summary:
    "Imports a configuration bundle, or with dryRun=true predicts each item's outcome and stores nothing",
  description:
    "Each item is judged as its section's own create or update judges it and reported per item (create, update, " +
    "unchanged, skipped, or error with the status its route would answer); matched by id, else by natural key " +
    "(target name; check name and target; schedule name and check; rule name; window scope and span; endpoint " +
    "url; role name). 403 when the caller holds none of the sections' write permissions; a section the caller " +
    "may not write is skipped with a warning naming that permission; bindings are never " +
    "imported; webhook endpoints are only updated, never created; `omitted` is ignored. 400 for a bundle of " +
    `another format or version, text that cannot be stored, or nesting over ${CONFIG_BUNDLE_MAX_DEPTH}; 413 ` +
    `over ${CONFIG_BUNDLE_MAX_BYTES} bytes; 502 when existing targets and definitions cannot be read or the ` +
    "controller cannot be asked (nothing written). Applied in one transaction. Audited: one row per import, " +
    "plus each item's own row.",
  access: "role",
  spec: false,
  query: z.object({
    dryRun: z.enum(["true", "false"]).default("false").describe("true: predict and store nothing"),
  }),
  body: ConfigBundleInput,
  example: {
    format: CONFIG_BUNDLE_FORMAT,
    version: CONFIG_BUNDLE_VERSION,
    omitted: [],
    targets: [{ name: "node-2-agent", address: "198.18.1.12:8080" }],
  },
  responses: { 200: ImportReport, ...errors(400, 401, 403, 413, 502, 503) },
});
