/** HTTP helpers shared by the fake API server's routes. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { type KubeObject, type KubeStatus, kubeStatus } from "./kube-objects.ts";

/** A request has been answered (or, for a held watch, will be). */
export type Handled = "handled";
export const HANDLED: Handled = "handled";

/** Answers a Kubernetes Status with its code. */
export function sendStatus(res: ServerResponse, st: KubeStatus): Handled {
  return json(res, st.code, st);
}

/** A 404 NotFound Status for a resource (leases are qualified with their group). */
export function notFound(resource: string, name: string): KubeStatus {
  const group = resource === "leases" ? "coordination.k8s.io" : "";
  const qualified = group ? `${resource}.${group}` : resource;
  return kubeStatus(404, "NotFound", `${qualified} "${name}" not found`, { name, group, kind: resource });
}

/** Answers `body` as JSON with `code`. */
export function json(res: ServerResponse, code: number, body: unknown): Handled {
  const text = JSON.stringify(body);
  res.writeHead(code, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
  res.end(text);
  return HANDLED;
}

/** The body as a Kubernetes object with a metadata.name, or undefined. */
export function parseObject(body: string): KubeObject | undefined {
  try {
    const v = JSON.parse(body) as unknown;
    if (typeof v !== "object" || v === null) return undefined;
    const meta = (v as { metadata?: unknown }).metadata;
    if (typeof meta !== "object" || meta === null) return undefined;
    if (typeof (meta as { name?: unknown }).name !== "string") return undefined;
    return v as KubeObject;
  } catch {
    return undefined;
  }
}

/** The whole request body as UTF-8. */
export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
