/** The fake API server's read-only Pod list (see FakeKubeApi): enough for field-selected lookups by node and IP. */
import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import { type Handled, json, sendStatus } from "./kube-http.ts";
import { type KubeObject, kubeStatus } from "./kube-objects.ts";

/** Fields a Pod list may be selected on here (the real server supports more; svc uses these). */
const SELECTABLE: Readonly<Record<string, (pod: KubeObject) => string>> = {
  "metadata.name": (p) => p.metadata.name,
  "spec.nodeName": (p) => String(p.spec?.nodeName ?? ""),
  "status.podIP": (p) => String(p.status?.podIP ?? ""),
  "status.phase": (p) => String(p.status?.phase ?? ""),
};

/** Test helper: a running v1 Pod on `nodeName` with `podIP`. */
export function podObject(
  namespace: string,
  name: string,
  nodeName: string,
  podIP: string,
  opts: { hostNetwork?: boolean; serviceAccount?: string } = {},
): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace, labels: { app: "svc-agent" } },
    spec: {
      nodeName,
      serviceAccountName: opts.serviceAccount ?? "svc-agent",
      ...(opts.hostNetwork ? { hostNetwork: true } : {}),
    },
    status: { phase: "Running", podIP, podIPs: [{ ip: podIP }] },
  };
}

export class FakePods {
  readonly #pods = new Map<string, KubeObject>();

  /** Stores the pod; a pod without a uid gets one (a new pod of an old name gets a new uid, as when recreated). */
  set(pod: KubeObject): void {
    const copy = structuredClone(pod);
    copy.metadata.uid ??= randomUUID();
    this.#pods.set(`${pod.metadata.namespace ?? "default"}/${pod.metadata.name}`, copy);
  }

  /** The stored pod, if any. */
  get(namespace: string, name: string): KubeObject | undefined {
    return this.#pods.get(`${namespace}/${name}`);
  }

  delete(namespace: string, name: string): void {
    this.#pods.delete(`${namespace}/${name}`);
  }

  /** GET /api/v1/namespaces/{ns}/pods with an optional `fieldSelector` of `field=value` terms joined by commas. */
  list(ns: string, fieldSelector: string, resourceVersion: number, res: ServerResponse): Handled {
    const terms: [(p: KubeObject) => string, string][] = [];
    for (const term of fieldSelector.split(",").filter((t) => t !== "")) {
      const eq = term.indexOf("=");
      const field = eq < 0 ? term : term.slice(0, eq);
      const read = Object.hasOwn(SELECTABLE, field) ? SELECTABLE[field] : undefined;
      if (read === undefined || eq < 0) {
        return sendStatus(res, kubeStatus(400, "BadRequest", `field label not supported: ${field}`));
      }
      terms.push([read, term.slice(eq + 1).replace(/^=/, "")]);
    }
    const items = [...this.#pods.values()]
      .filter((p) => (p.metadata.namespace ?? "default") === ns)
      .filter((p) => terms.every(([read, want]) => read(p) === want))
      .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    return json(res, 200, {
      kind: "PodList",
      apiVersion: "v1",
      metadata: { resourceVersion: String(resourceVersion) },
      items,
    });
  }
}
