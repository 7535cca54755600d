/**
 * The fake API server's monitoring.coreos.com/v1 PrometheusRule routes (the Prometheus Operator's CRD, served as a
 * real API server serves a custom resource): namespaced list, GET (404 NotFound), POST (409 AlreadyExists), PUT
 * with optimistic concurrency (`metadata.resourceVersion` must equal the stored one, else 409 Conflict; missing,
 * 422), DELETE. A body whose `spec.groups` is not a list is refused 422 as the CRD's schema would.
 */
import type { ServerResponse } from "node:http";
import { type Handled, json, parseObject, sendStatus } from "./kube-http.ts";
import { type KubeObject, kubeStatus } from "./kube-objects.ts";
import type { LeaseRouteDeps } from "./lease-route.ts";

const GROUP = "monitoring.coreos.com";
const API_VERSION = `${GROUP}/v1`;

/** What the routes share with the server: counters and the one global resourceVersion. */
export type PrometheusRuleDeps = Omit<LeaseRouteDeps, "counters"> & {
  counters: { prometheusRuleWrites: number; prometheusRuleConflicts: number };
};

function notFound(name: string) {
  return kubeStatus(404, "NotFound", `prometheusrules.${GROUP} "${name}" not found`, {
    name,
    group: GROUP,
    kind: "prometheusrules",
  });
}

function invalid(obj: KubeObject): string | undefined {
  const groups = (obj.spec as { groups?: unknown } | undefined)?.groups;
  return Array.isArray(groups) ? undefined : "spec.groups: Required value";
}

export class FakePrometheusRules {
  readonly #rules = new Map<string, KubeObject>();

  constructor(private readonly deps: PrometheusRuleDeps) {}

  /** A copy of the stored object, or undefined. */
  get(namespace: string, name: string): KubeObject | undefined {
    const r = this.#rules.get(`${namespace}/${name}`);
    return r ? structuredClone(r) : undefined;
  }

  /** Writes an object as another client would (a new resourceVersion). */
  put(obj: KubeObject): KubeObject {
    const ns = obj.metadata.namespace ?? "default";
    const key = `${ns}/${obj.metadata.name}`;
    const stored = this.deps.stamp(
      { ...structuredClone(obj), apiVersion: API_VERSION, kind: "PrometheusRule" },
      this.#rules.get(key),
    );
    stored.metadata.namespace = ns;
    this.#rules.set(key, stored);
    return structuredClone(stored);
  }

  route(method: string, ns: string, name: string | undefined, body: string, res: ServerResponse): Handled {
    if (name === undefined) {
      if (method === "GET") {
        return json(res, 200, {
          kind: "PrometheusRuleList",
          apiVersion: API_VERSION,
          metadata: { resourceVersion: String(this.deps.version()) },
          items: [...this.#rules.values()].filter((r) => r.metadata.namespace === ns),
        });
      }
      if (method !== "POST") return sendStatus(res, kubeStatus(405, "MethodNotAllowed", method));
      const obj = parseObject(body);
      if (!obj) return sendStatus(res, kubeStatus(400, "BadRequest", "body is not a PrometheusRule"));
      const bad = invalid(obj);
      if (bad) return sendStatus(res, kubeStatus(422, "Invalid", bad));
      const key = `${ns}/${obj.metadata.name}`;
      if (this.#rules.has(key)) {
        this.deps.counters.prometheusRuleConflicts++;
        return sendStatus(
          res,
          kubeStatus(409, "AlreadyExists", `prometheusrules.${GROUP} "${obj.metadata.name}" already exists`),
        );
      }
      this.deps.counters.prometheusRuleWrites++;
      return json(res, 201, this.put({ ...obj, metadata: { ...obj.metadata, namespace: ns } }));
    }
    const key = `${ns}/${name}`;
    const current = this.#rules.get(key);
    if (method === "GET") return current ? json(res, 200, current) : sendStatus(res, notFound(name));
    if (method === "DELETE") {
      if (!current) return sendStatus(res, notFound(name));
      this.#rules.delete(key);
      this.deps.bump();
      return json(res, 200, current);
    }
    if (method !== "PUT") return sendStatus(res, kubeStatus(405, "MethodNotAllowed", method));
    const obj = parseObject(body);
    if (!obj || obj.metadata.name !== name)
      return sendStatus(res, kubeStatus(400, "BadRequest", "the name of the object does not match the URL"));
    if (!current) return sendStatus(res, notFound(name));
    const bad = invalid(obj);
    if (bad) return sendStatus(res, kubeStatus(422, "Invalid", bad));
    if (obj.metadata.resourceVersion === undefined || obj.metadata.resourceVersion === "")
      return sendStatus(
        res,
        kubeStatus(422, "Invalid", "metadata.resourceVersion: must be specified for an update"),
      );
    if (obj.metadata.resourceVersion !== current.metadata.resourceVersion) {
      this.deps.counters.prometheusRuleConflicts++;
      return sendStatus(
        res,
        kubeStatus(
          409,
          "Conflict",
          `Operation cannot be fulfilled on prometheusrules.${GROUP} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
        ),
      );
    }
    this.deps.counters.prometheusRuleWrites++;
    return json(res, 200, this.put({ ...obj, metadata: { ...obj.metadata, namespace: ns } }));
  }
}
