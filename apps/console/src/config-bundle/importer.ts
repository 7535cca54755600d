/**
 * Runs an import (spec §2.12, §7, §8.5). The whole import is one database transaction; each item runs in its own
 * savepoint through its section's own store write (the stores are built over the transaction), so an item refused
 * with a 4xx is reported on that item, rolled back alone, and the others go on. A dry run runs exactly the same
 * writes and rolls the transaction back: its plan is what an apply would do at that moment, last-administrator
 * refusals included. An error that is not an item's (5xx: the controller cannot be asked, the store fails)
 * ends the import and nothing is written.
 *
 * A caller holding none of the sections' write permissions (SECTION_WRITE) is refused with 403 before anything runs.
 * Sections are applied in BUNDLE_SECTIONS order, each only with its write permission (else every item is skipped
 * with a warning naming that permission); bindings are never imported; `omitted` is ignored. Audit: every write leaves its store's own
 * row (action `POST /api/v1/import`), and the import one summary row in the same transaction, so an apply whose
 * rows cannot be written writes nothing; a dry run leaves only its summary row, its action
 * `POST /api/v1/import?dryRun=true` (the audit page shows no detail, and a store-nothing call must be told from a
 * write).
 */
import {
  BUNDLE_SECTIONS,
  type BundleSection,
  type ConfigBundleInput,
  type ImportItemResult,
  type ImportReport,
  type ImportSectionResult,
  type Permission,
  SECTION_WRITE,
} from "@svc/contract";
import { ERROR_STATUS } from "../api/error-handler.ts";
import { ConsoleError, ForbiddenError, UpstreamError } from "../errors.ts";
import { type AuditActor, allowedRow, insertAudit } from "../store/audit-row.ts";
import type { Db } from "../store/db.ts";
import { checkSection, scheduleSection, targetSection } from "./catalog-sections.ts";
import { rawKey, type SectionRun } from "./item.ts";
import { alertRuleSection, maintenanceSection, roleSection, webhookSection } from "./other-sections.ts";
import { savepointDb } from "./savepoint-db.ts";
import type { SectionContext, TxStores } from "./stores.ts";

/** What an import needs. */
export interface ImporterDeps {
  db: Db;
  now: () => number;
  /** the sections' stores over `db` (the import's transaction) */
  stores: (db: Db) => TxStores;
}

type Imported = Exclude<BundleSection, "bindings">;

const SECTIONS: Readonly<Record<Imported, (ctx: SectionContext) => Promise<SectionRun>>> = {
  targets: targetSection,
  checks: checkSection,
  schedules: scheduleSection,
  alertRules: alertRuleSection,
  maintenanceWindows: maintenanceSection,
  webhooks: webhookSection,
  roles: roleSection,
};

class DryRunDone extends Error {
  constructor(readonly report: ImportReport) {
    super("dry run: rolled back");
  }
}

const rawOf = (b: ConfigBundleInput, s: BundleSection): readonly unknown[] | undefined =>
  Object.hasOwn(b, s) ? b[s] : undefined;

function sectionResult(
  section: BundleSection,
  state: ImportSectionResult["state"],
  warning: string | null,
  items: ImportItemResult[],
): ImportSectionResult {
  const counts = { create: 0, update: 0, unchanged: 0, skipped: 0, error: 0 };
  for (const i of items) counts[i.outcome]++;
  return { section, state, warning, counts, items };
}

function skippedAll(raw: readonly unknown[], section: BundleSection, why: string): ImportSectionResult {
  return sectionResult(
    section,
    "skipped",
    why,
    raw.map((r, index) => ({
      index,
      key: rawKey(r, index),
      id: null,
      outcome: "skipped",
      status: null,
      message: why,
    })),
  );
}

/** The status an item's refusal answers on its own route, or undefined when it is not the item's (5xx). */
function itemStatus(e: unknown): number | undefined {
  if (!(e instanceof ConsoleError)) return undefined;
  const status = ERROR_STATUS[e.code];
  return status < 500 ? status : undefined;
}

/** Imports `bundle` as `actor` holding `permissions`; a dry run stores nothing but its audit row. */
export async function runImport(
  deps: ImporterDeps,
  bundle: ConfigBundleInput,
  permissions: ReadonlySet<Permission>,
  actor: AuditActor,
  dryRun: boolean,
): Promise<ImportReport> {
  const writable = [...new Set(Object.values(SECTION_WRITE).filter((p) => p !== null))];
  if (!writable.some((p) => permissions.has(p)))
    throw new ForbiddenError(
      `this caller holds none of the permissions an import writes with (${writable.join(", ")})`,
    );
  const summary = (r: ImportReport) => ({
    dryRun,
    sections: Object.fromEntries(
      r.sections.filter((s) => s.state !== "absent").map((s) => [s.section, s.counts]),
    ),
  });
  try {
    return await deps.db.transaction(async (tx) => {
      const db = savepointDb(tx, deps.db.kind);
      const stores = deps.stores(db);
      try {
        await stores.catalog.listTargets();
        await stores.catalog.listChecks();
      } catch (e) {
        throw new UpstreamError(
          `cannot read the existing targets and check definitions: ${e instanceof Error ? e.message : String(e)}`,
        );
      }
      const writes = (s: BundleSection) => {
        const p = SECTION_WRITE[s];
        return p !== null && permissions.has(p) && rawOf(bundle, s) !== undefined;
      };
      const ctx: SectionContext = { stores, actor, raw: (s) => rawOf(bundle, s) ?? [], writes };
      const sections: ImportSectionResult[] = [];
      for (const section of BUNDLE_SECTIONS)
        sections.push(await runSection(db, ctx, bundle, section, permissions));
      const report: ImportReport = { dryRun, sections };
      if (dryRun) throw new DryRunDone(report);
      await insertAudit(tx, allowedRow(actor, deps.now(), summary(report)));
      return report;
    });
  } catch (e) {
    if (!(e instanceof DryRunDone)) throw e;
    // the action says it stored nothing: GET /api/v1/audit shows no detail, and the investigation ranks writes
    const dry = { ...actor, action: `${actor.action}?dryRun=true` };
    await insertAudit(deps.db, allowedRow(dry, deps.now(), summary(e.report)));
    return e.report;
  }
}

async function runSection(
  db: Db,
  ctx: SectionContext,
  bundle: ConfigBundleInput,
  section: BundleSection,
  permissions: ReadonlySet<Permission>,
): Promise<ImportSectionResult> {
  const raw = rawOf(bundle, section);
  if (raw === undefined) return sectionResult(section, "absent", null, []);
  if (section === "bindings")
    return skippedAll(raw, section, "bindings are exported only, never imported: bind roles on this console");
  const need = SECTION_WRITE[section];
  if (need === null || !permissions.has(need))
    return skippedAll(
      raw,
      section,
      `not imported: writing ${section} needs ${need ?? "a write permission"}, ` +
        `the permission the ${section}' own write routes ask for`,
    );
  const run = await SECTIONS[section](ctx);
  const items: ImportItemResult[] = [];
  for (let index = 0; index < raw.length; index++) {
    const judged = run.item(raw[index], index);
    const base = { index, key: judged.key };
    if ("invalid" in judged) {
      items.push({ ...base, id: null, outcome: "error", status: 400, message: judged.invalid });
      continue;
    }
    try {
      const done = await db.transaction(() => judged.run());
      items.push({
        ...base,
        id: done.id,
        outcome: done.outcome,
        status: null,
        message: done.message ?? null,
      });
    } catch (e) {
      const status = itemStatus(e);
      if (status === undefined) throw e;
      items.push({ ...base, id: null, outcome: "error", status, message: (e as Error).message });
    }
  }
  return sectionResult(section, "imported", null, items);
}
