/**
 * Bounds on every field of a registration (docs/decisions.md, "Registration bounds and ownership"). They keep one
 * peer entry under about 7 KiB, so a hostile or broken agent cannot inflate every other agent's peer list; the
 * broadcaster still splits lists that outgrow one gRPC message (grpc/peer-list-chunks.ts).
 */
export const REGISTRATION_LIMITS = {
  /** bytes (UTF-8) of `node_name` and `agent_id`: a DNS subdomain's 253 */
  nameBytes: 253,
  /** bytes of `zone`: a Kubernetes label value's 63 */
  zoneBytes: 63,
  /** bytes of `version` */
  versionBytes: 64,
  /** entries in `labels` */
  labels: 32,
  /** bytes of one label key: a Kubernetes qualified name (253-byte prefix, '/', 63-byte name) */
  labelKeyBytes: 317,
  /** bytes of one label value */
  labelValueBytes: 256,
  /** bytes of all label keys and values together */
  labelsTotalBytes: 4096,
  /** entries in `capabilities` */
  capabilities: 32,
  /** bytes of one capability */
  capabilityBytes: 64,
} as const;

/** The field at fault and why, or undefined when the value is within bounds. */
export type FieldProblem = { field: string; reason: string } | undefined;

function hasControl(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/** A bounded identifier-like string: at most `max` bytes, no control characters (NUL included). */
export function boundedTextProblem(field: string, value: string, max: number): FieldProblem {
  const bytes = Buffer.byteLength(value, "utf8");
  if (bytes > max) return { field, reason: `at most ${max} bytes, got ${bytes}` };
  if (hasControl(value)) return { field, reason: "must not contain control characters" };
  return undefined;
}

/** Checks the label map's count, each key and value, and the total size. */
export function labelsProblem(labels: Record<string, string>): FieldProblem {
  const L = REGISTRATION_LIMITS;
  const entries = Object.entries(labels);
  if (entries.length > L.labels)
    return { field: "labels", reason: `at most ${L.labels} entries, got ${entries.length}` };
  let total = 0;
  for (const [key, value] of entries) {
    if (key === "") return { field: "labels", reason: "a key must not be empty" };
    const k = boundedTextProblem("labels", key, L.labelKeyBytes);
    if (k !== undefined) return { field: "labels", reason: `key: ${k.reason}` };
    const v = boundedTextProblem("labels", value, L.labelValueBytes);
    if (v !== undefined) return { field: "labels", reason: `value of one key: ${v.reason}` };
    total += Buffer.byteLength(key, "utf8") + Buffer.byteLength(value, "utf8");
  }
  if (total > L.labelsTotalBytes) {
    return { field: "labels", reason: `at most ${L.labelsTotalBytes} bytes in all, got ${total}` };
  }
  return undefined;
}

/** Checks the capability list's count and each entry. */
export function capabilitiesProblem(capabilities: readonly string[]): FieldProblem {
  const L = REGISTRATION_LIMITS;
  if (capabilities.length > L.capabilities) {
    return { field: "capabilities", reason: `at most ${L.capabilities} entries, got ${capabilities.length}` };
  }
  for (const c of capabilities) {
    const p = boundedTextProblem("capabilities", c, L.capabilityBytes);
    if (p !== undefined) return { field: "capabilities", reason: `an entry: ${p.reason}` };
  }
  return undefined;
}
