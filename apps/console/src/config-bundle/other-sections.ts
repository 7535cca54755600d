/**
 * Import of alert rules, maintenance windows, webhook endpoints and custom roles through each one's own store
 * write. Matching: by id when it names an object here, else rules by name (a different name whose alert name
 * another rule has is refused `alert name collision`, as create refuses it), windows by scope and span, endpoints
 * by url, roles by name. Endpoints are only updated (url, events, enabled; the secret stays): a bundle carries no
 * secret, so an endpoint not here is skipped. A role change that would leave no administrator is refused 409 by
 * the same guard PUT /api/v1/rbac/roles/{name} runs.
 */
import {
  BundleAlertRule,
  BundleMaintenanceWindow,
  BundleRole,
  BundleWebhook,
  type MaintenanceInput,
  type MaintenanceWindow,
} from "@svc/contract";
import { sameJson } from "./compare.ts";
import { type ItemDone, judge, type SectionRun } from "./item.ts";
import type { SectionContext } from "./stores.ts";

/** Alert rules. */
export async function alertRuleSection(ctx: SectionContext): Promise<SectionRun> {
  const { alertRules } = ctx.stores;
  const byId = new Map((await alertRules.list()).map((r) => [r.id, r]));
  return {
    item: (raw, index) =>
      judge(BundleAlertRule, raw, index, (it) => ({
        key: it.name,
        run: async (): Promise<ItemDone> => {
          const { id, ...body } = it;
          const old =
            (id !== undefined ? byId.get(id) : undefined) ??
            [...byId.values()].find((r) => r.name === it.name);
          if (old) {
            const { id: _i, alertName: _a, createdAt: _c, updatedAt: _u, ...was } = old;
            if (sameJson(was, body)) return { outcome: "unchanged", id: old.id };
          }
          const r = old
            ? await alertRules.update(old.id, body, ctx.actor)
            : await alertRules.create(body, ctx.actor);
          byId.set(r.id, r);
          return { outcome: old ? "update" : "create", id: r.id };
        },
      })),
  };
}

const span = (
  w: Pick<MaintenanceInput, "scope" | "node" | "source" | "destination" | "target" | "startAt" | "endAt">,
) =>
  JSON.stringify([
    w.scope,
    w.node,
    w.source,
    w.destination,
    w.target,
    Date.parse(w.startAt),
    Date.parse(w.endAt),
  ]);

const windowKey = (w: MaintenanceInput) => {
  const where = { fleet: "fleet", node: w.node, pair: `${w.source}->${w.destination}`, target: w.target }[
    w.scope
  ];
  return `${where} ${w.startAt} - ${w.endAt}`;
};

/** Maintenance windows. */
export async function maintenanceSection(ctx: SectionContext): Promise<SectionRun> {
  const { maintenance } = ctx.stores;
  const byId = new Map<string, MaintenanceWindow>((await maintenance.list()).map((w) => [w.id, w]));
  return {
    item: (raw, index) =>
      judge(BundleMaintenanceWindow, raw, index, (it) => ({
        key: windowKey(it),
        run: async (): Promise<ItemDone> => {
          const { id, ...body } = it;
          const old =
            (id !== undefined ? byId.get(id) : undefined) ??
            [...byId.values()].find((w) => span(w) === span(body));
          if (old && span(old) === span(body) && old.reason === body.reason)
            return { outcome: "unchanged", id: old.id };
          const w = old
            ? await maintenance.update(old.id, body, ctx.actor)
            : await maintenance.create(body, ctx.actor);
          byId.set(w.id, w);
          return { outcome: old ? "update" : "create", id: w.id };
        },
      })),
  };
}

/** Webhook endpoints: updates only. */
export async function webhookSection(ctx: SectionContext): Promise<SectionRun> {
  const { webhooks } = ctx.stores;
  const byId = new Map((await webhooks.list()).map((e) => [e.id, e]));
  return {
    item: (raw, index) =>
      judge(BundleWebhook, raw, index, (it) => ({
        key: it.url,
        run: async (): Promise<ItemDone> => {
          const { id, ...body } = it;
          const old =
            (id !== undefined ? byId.get(id) : undefined) ?? [...byId.values()].find((e) => e.url === it.url);
          if (!old)
            return {
              outcome: "skipped",
              id: null,
              message:
                "no endpoint with this url here: an import only updates existing endpoints (a bundle carries no " +
                "signing secret); add it with its secret first",
            };
          if (sameJson({ url: old.url, events: old.events, enabled: old.enabled }, body))
            return { outcome: "unchanged", id: old.id };
          const e = await webhooks.update(old.id, body, ctx.actor);
          byId.set(e.id, e);
          return { outcome: "update", id: e.id };
        },
      })),
  };
}

/** Custom roles. */
export async function roleSection(ctx: SectionContext): Promise<SectionRun> {
  const { rbac } = ctx.stores;
  const byName = new Map((await rbac.listRoles()).map((r) => [r.name, r]));
  return {
    item: (raw, index) =>
      judge(BundleRole, raw, index, (it) => ({
        key: it.name,
        run: async (): Promise<ItemDone> => {
          const old = byName.get(it.name);
          const want = [...new Set(it.permissions)].sort();
          if (old && sameJson([...old.permissions].sort(), want))
            return { outcome: "unchanged", id: old.name };
          const r = await rbac.putRole(it.name, it.permissions, ctx.actor);
          byName.set(r.name, r);
          return { outcome: old ? "update" : "create", id: r.name };
        },
      })),
  };
}
