/**
 * Import of targets, check definitions and schedules through the catalog's and schedules' own writes. Matching:
 * by id when it names an object here, else targets by name, definitions by name and target, schedules by name and
 * definition. Two objects here with one natural key: 409 (give the id). A target update that an enabled
 * definition could no longer run on is refused (422) as PUT refuses it, unless this bundle rewrites that definition
 * into one the new address can run: then the definition is first saved disabled (which always saves) and its own
 * item writes it back.
 */
import {
  BundleCheck,
  BundleSchedule,
  BundleTarget,
  type CheckDefinition,
  type CheckInput,
  type Target,
} from "@svc/contract";
import { shapeProblem } from "../checks/projection.ts";
import { parseTargetAddress } from "../checks/target-address.ts";
import { ConflictError, UnprocessableError } from "../errors.ts";
import { sameJson } from "./compare.ts";
import { type ItemDone, judge, type SectionRun } from "./item.ts";
import type { SectionContext } from "./stores.ts";

const checkKey = (targetId: string, name: string) => `${targetId}\u0000${name}`;

function unique<T>(found: readonly T[] | undefined, what: string): T | undefined {
  if (found && found.length > 1) throw new ConflictError(`${found.length} ${what}: give the id`);
  return found?.[0];
}

function group<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const t of items) m.set(key(t), [...(m.get(key(t)) ?? []), t]);
  return m;
}

const inputOf = (c: CheckDefinition): CheckInput => ({
  name: c.name,
  targetId: c.targetId,
  type: c.type,
  params: c.params,
  sources: c.sources,
  intervalSeconds: c.intervalSeconds,
  timeoutSeconds: c.timeoutSeconds,
  enabled: c.enabled,
});

/** Targets. */
export async function targetSection(ctx: SectionContext): Promise<SectionRun> {
  const { catalog } = ctx.stores;
  const byId = new Map((await catalog.listTargets()).map((t) => [t.id, t]));
  const byName = (name: string) => [...byId.values()].find((t) => t.name === name);
  const checks = await catalog.listChecks();
  const rewritten = ctx.writes("checks")
    ? ctx.raw("checks").flatMap((r) => {
        const p = BundleCheck.safeParse(r);
        return p.success ? [p.data] : [];
      })
    : [];

  /** Saves disabled each enabled definition of `t` that `kind` breaks and the bundle rewrites to fit `kind`. */
  const makeRoom = async (t: Target, kind: "host" | "url", newName: string) => {
    for (const c of checks.filter((x) => x.targetId === t.id && x.enabled)) {
      if (!shapeProblem({ type: c.type, params: c.params, targetKind: kind })) continue;
      const fix = rewritten.find(
        (r) => (r.id !== undefined && r.id === c.id) || (r.name === c.name && r.target === newName),
      );
      if (!fix || shapeProblem({ type: fix.type, params: fix.params, targetKind: kind })) continue;
      await catalog.updateCheck(c.id, { ...inputOf(c), enabled: false }, ctx.actor);
    }
  };

  return {
    item: (raw, index) =>
      judge(BundleTarget, raw, index, (it) => ({
        key: it.name,
        run: async (): Promise<ItemDone> => {
          const body = { name: it.name, address: it.address };
          const old = (it.id !== undefined ? byId.get(it.id) : undefined) ?? byName(it.name);
          let t: Target;
          let outcome: ItemDone["outcome"];
          if (!old) {
            t = await catalog.createTarget(body, ctx.actor);
            outcome = "create";
          } else {
            const a = parseTargetAddress(it.address);
            if ("error" in a) throw new UnprocessableError(a.error);
            if (
              old.name === it.name &&
              a.kind === old.kind &&
              a.address === old.address &&
              a.port === old.port
            )
              return { outcome: "unchanged", id: old.id };
            if (a.kind !== old.kind) await makeRoom(old, a.kind, it.name);
            t = await catalog.updateTarget(old.id, body, ctx.actor);
            outcome = "update";
          }
          byId.set(t.id, t);
          return { outcome, id: t.id };
        },
      })),
  };
}

/** Check definitions. */
export async function checkSection(ctx: SectionContext): Promise<SectionRun> {
  const { catalog } = ctx.stores;
  const targets = await catalog.listTargets();
  const targetByName = new Map(targets.map((t) => [t.name, t]));
  const byId = new Map((await catalog.listChecks()).map((c) => [c.id, c]));
  return {
    item: (raw, index) =>
      judge(BundleCheck, raw, index, (it) => ({
        key: `${it.name} @ ${it.target}`,
        run: async (): Promise<ItemDone> => {
          const target = targetByName.get(it.target);
          if (!target) throw new UnprocessableError(`target: no target named ${JSON.stringify(it.target)}`);
          const { id: _id, target: _t, plane: _p, ...rest } = it;
          const body: CheckInput = { ...rest, targetId: target.id };
          const named = [...byId.values()].filter((c) => c.targetId === target.id && c.name === it.name);
          const old =
            (it.id !== undefined ? byId.get(it.id) : undefined) ??
            unique(named, `check definitions named ${it.name} on ${it.target}`);
          if (old && sameJson(inputOf(old), body)) return { outcome: "unchanged", id: old.id };
          const c = old
            ? await catalog.updateCheck(old.id, body, ctx.actor)
            : await catalog.createCheck(body, ctx.actor);
          byId.set(c.id, c);
          return { outcome: old ? "update" : "create", id: c.id };
        },
      })),
  };
}

/** Schedules. */
export async function scheduleSection(ctx: SectionContext): Promise<SectionRun> {
  const { catalog, schedules } = ctx.stores;
  const targetByName = new Map((await catalog.listTargets()).map((t) => [t.name, t]));
  const checksByKey = group(await catalog.listChecks(), (c) => checkKey(c.targetId, c.name));
  const byId = new Map((await schedules.list()).map((s) => [s.id, s]));
  return {
    item: (raw, index) =>
      judge(BundleSchedule, raw, index, (it) => ({
        key: `${it.name} (${it.check} @ ${it.target})`,
        run: async (): Promise<ItemDone> => {
          const target = targetByName.get(it.target);
          if (!target) throw new UnprocessableError(`target: no target named ${JSON.stringify(it.target)}`);
          const def = unique(
            checksByKey.get(checkKey(target.id, it.check)),
            `check definitions named ${it.check} on ${it.target}`,
          );
          if (!def)
            throw new UnprocessableError(
              `check: no check definition named ${JSON.stringify(it.check)} on ${it.target}`,
            );
          const body = {
            name: it.name,
            definitionId: def.id,
            kind: it.kind,
            intervalSeconds: it.intervalSeconds,
            enabled: it.enabled,
          };
          const named = [...byId.values()].filter((s) => s.name === it.name && s.definitionId === def.id);
          const old =
            (it.id !== undefined ? byId.get(it.id) : undefined) ??
            unique(named, `schedules named ${it.name} of ${it.check}`);
          if (
            old &&
            sameJson(
              {
                name: old.name,
                definitionId: old.definitionId,
                kind: old.kind,
                intervalSeconds: old.intervalSeconds,
                enabled: old.enabled,
              },
              body,
            )
          )
            return { outcome: "unchanged", id: old.id };
          const s = old
            ? await schedules.update(old.id, body, ctx.actor)
            : await schedules.create(body, ctx.actor);
          byId.set(s.id, s);
          return { outcome: old ? "update" : "create", id: s.id };
        },
      })),
  };
}
