import { readFileSync } from "node:fs";
import { hostname } from "node:os";

/** Where Kubernetes mounts the pod's namespace with its service account. */
export const SERVICE_ACCOUNT_NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

/** The Lease name the controller replicas compete for. */
export const DEFAULT_LEASE_NAME = "svc-controller";

/**
 * This replica's identity in the Lease: the pod name (`SVC_POD_NAME`, else `POD_NAME`), else `<hostname>_<pid>`
 * so two processes on one host differ.
 */
export function electionIdentity(
  env: NodeJS.ProcessEnv = process.env,
  host: string = hostname(),
  pid: number = process.pid,
): string {
  return env.SVC_POD_NAME || env.POD_NAME || `${host}_${pid}`;
}

/**
 * The namespace of the Lease (the controller's own): `SVC_POD_NAMESPACE`, else `POD_NAMESPACE`, else the service
 * account's namespace file when mounted, else `default`.
 */
export function electionNamespace(
  env: NodeJS.ProcessEnv = process.env,
  readNamespaceFile: () => string | undefined = readServiceAccountNamespace,
): string {
  return env.SVC_POD_NAMESPACE || env.POD_NAMESPACE || readNamespaceFile()?.trim() || "default";
}

function readServiceAccountNamespace(): string | undefined {
  try {
    return readFileSync(SERVICE_ACCOUNT_NAMESPACE_FILE, "utf8");
  } catch {
    return undefined;
  }
}
