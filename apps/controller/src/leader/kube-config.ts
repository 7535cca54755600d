import { KubeConfig } from "@kubernetes/client-node";

export type { KubeConfig } from "@kubernetes/client-node";

/**
 * A KubeConfig for one API server URL with no credentials and TLS verification off (used with the fake API server
 * in tests, and for `kubectl proxy`-style plain HTTP endpoints).
 */
export function kubeConfigForServer(server: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "svc", server, skipTLSVerify: true }],
    users: [{ name: "svc" }],
    contexts: [{ name: "svc", cluster: "svc", user: "svc" }],
    currentContext: "svc",
  });
  return kc;
}

/**
 * The in-cluster Kubernetes API (service account token and CA) when running in a pod, i.e. when
 * `KUBERNETES_SERVICE_HOST` is set; undefined otherwise. A developer's kubeconfig is deliberately not picked up:
 * outside a cluster the controller uses registrations and no election (design.md §2); use kubeConfigFromFile()
 * to opt in explicitly.
 */
export function kubeConfigFromEnvironment(env: NodeJS.ProcessEnv = process.env): KubeConfig | undefined {
  if (!env.KUBERNETES_SERVICE_HOST) return undefined;
  const kc = new KubeConfig();
  kc.loadFromCluster();
  return kc;
}

/** A KubeConfig loaded from a kubeconfig file (its current context). Throws if the file cannot be read. */
export function kubeConfigFromFile(path: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}
