/** The fake API server's coordination.k8s.io/v1 Lease routes (see FakeKubeApi for the protocol it follows). */
import type { ServerResponse } from "node:http";
import type { FakeKubeApiCounters } from "./fake-kube-api.ts";
import { type Handled, json, notFound, parseObject, sendStatus } from "./kube-http.ts";
import { type KubeObject, kubeStatus } from "./kube-objects.ts";

/** What the Lease routes share with the server: counters and the one global resourceVersion. */
export interface LeaseRouteDeps {
  counters: FakeKubeApiCounters;
  /** sets a new resourceVersion (and uid, creationTimestamp) on a written object */
  stamp(obj: KubeObject, old: KubeObject | undefined): KubeObject;
  /** the current global resourceVersion */
  version(): number;
  /** bumps the global resourceVersion (a delete) */
  bump(): void;
}

export class FakeLeases {
  readonly #leases = new Map<string, KubeObject>();
  readonly #counters: FakeKubeApiCounters;
  readonly #stamp: LeaseRouteDeps["stamp"];
  readonly #version: () => number;
  readonly #bump: () => void;

  constructor(deps: LeaseRouteDeps) {
    this.#counters = deps.counters;
    this.#stamp = deps.stamp;
    this.#version = deps.version;
    this.#bump = deps.bump;
  }

  /** A copy of the stored Lease, or undefined. */
  get(namespace: string, name: string): KubeObject | undefined {
    const l = this.#leases.get(`${namespace}/${name}`);
    return l ? structuredClone(l) : undefined;
  }

  route(method: string, ns: string, name: string | undefined, body: string, res: ServerResponse): Handled {
    if (name === undefined) {
      if (method === "GET") {
        const items = [...this.#leases.values()].filter((l) => l.metadata.namespace === ns);
        return json(res, 200, {
          kind: "LeaseList",
          apiVersion: "coordination.k8s.io/v1",
          metadata: { resourceVersion: String(this.#version()) },
          items,
        });
      }
      if (method !== "POST") return sendStatus(res, kubeStatus(405, "MethodNotAllowed", method));
      const obj = parseObject(body);
      if (!obj) return sendStatus(res, kubeStatus(400, "BadRequest", "body is not a Lease"));
      const key = `${ns}/${obj.metadata.name}`;
      if (this.#leases.has(key)) {
        this.#counters.leaseConflicts++;
        return sendStatus(
          res,
          kubeStatus(
            409,
            "AlreadyExists",
            `leases.coordination.k8s.io "${obj.metadata.name}" already exists`,
            {
              name: obj.metadata.name,
              group: "coordination.k8s.io",
              kind: "leases",
            },
          ),
        );
      }
      this.#counters.leaseCreates++;
      const stored = this.#stamp({ ...obj, apiVersion: "coordination.k8s.io/v1", kind: "Lease" }, undefined);
      stored.metadata.namespace = ns;
      this.#leases.set(key, stored);
      return json(res, 201, stored);
    }
    const key = `${ns}/${name}`;
    const current = this.#leases.get(key);
    if (method === "GET") {
      this.#counters.leaseGets++;
      return current ? json(res, 200, current) : sendStatus(res, notFound("leases", name));
    }
    if (method === "DELETE") {
      if (!current) return sendStatus(res, notFound("leases", name));
      this.#leases.delete(key);
      this.#bump();
      return json(res, 200, current);
    }
    if (method !== "PUT") return sendStatus(res, kubeStatus(405, "MethodNotAllowed", method));
    const obj = parseObject(body);
    if (!obj || obj.metadata.name !== name) {
      return sendStatus(res, kubeStatus(400, "BadRequest", "the name of the object does not match the URL"));
    }
    if (!current) return sendStatus(res, notFound("leases", name));
    if (obj.metadata.resourceVersion === undefined || obj.metadata.resourceVersion === "") {
      return sendStatus(
        res,
        kubeStatus(422, "Invalid", "metadata.resourceVersion: must be specified for an update"),
      );
    }
    if (obj.metadata.resourceVersion !== current.metadata.resourceVersion) {
      this.#counters.leaseConflicts++;
      return sendStatus(
        res,
        kubeStatus(
          409,
          "Conflict",
          `Operation cannot be fulfilled on leases.coordination.k8s.io "${name}": the object has been modified; please apply your changes to the latest version and try again`,
          { name, group: "coordination.k8s.io", kind: "leases" },
        ),
      );
    }
    this.#counters.leaseUpdates++;
    const stored = this.#stamp({ ...obj, apiVersion: "coordination.k8s.io/v1", kind: "Lease" }, current);
    stored.metadata.namespace = ns;
    this.#leases.set(key, stored);
    return json(res, 200, stored);
  }
}
