/** A Kubernetes object as the fake API server stores it: plain JSON with `metadata`. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    uid?: string;
    creationTimestamp?: string;
    labels?: Record<string, string>;
    [key: string]: unknown;
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

/** A watch event as the API server streams it (one JSON document per line). */
export interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED" | "ERROR";
  object: KubeObject | KubeStatus;
}

/** The API server's `Status` body for failures (and 410 watch errors). */
export interface KubeStatus {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, never>;
  status: "Failure";
  message: string;
  reason: string;
  code: number;
  details?: { name?: string; group?: string; kind?: string };
}

/** A failure Status with `code`, `reason` and `message`. */
export function kubeStatus(
  code: number,
  reason: string,
  message: string,
  details?: KubeStatus["details"],
): KubeStatus {
  const out: KubeStatus = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    code,
  };
  if (details) out.details = details;
  return out;
}

/** Test helper: a v1 Node with the zone label (under `zoneLabel`, when `zone` is given) and a Ready condition. */
export function nodeObject(
  name: string,
  opts: { zone?: string; ready?: boolean; zoneLabel?: string; labels?: Record<string, string> } = {},
): KubeObject {
  const labels: Record<string, string> = { "kubernetes.io/hostname": name, ...opts.labels };
  if (opts.zone !== undefined) labels[opts.zoneLabel ?? "topology.kubernetes.io/zone"] = opts.zone;
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, labels },
    spec: {},
    status: {
      conditions: [
        { type: "MemoryPressure", status: "False", reason: "KubeletHasSufficientMemory" },
        {
          type: "Ready",
          status: (opts.ready ?? true) ? "True" : "False",
          reason: (opts.ready ?? true) ? "KubeletReady" : "KubeletNotReady",
        },
      ],
    },
  };
}
