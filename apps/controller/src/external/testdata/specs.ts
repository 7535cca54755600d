/** Test fixture: a valid spec body entry, with overrides (shallow; `target` merged). */
export function spec(over: Record<string, unknown> = {}): Record<string, unknown> {
  const { target, ...rest } = over;
  return {
    definitionId: "def-1",
    target: { name: "web", kind: "host", address: "198.18.0.9", port: 0, ...(target as object | undefined) },
    checkType: "tcp",
    intervalNs: 1_000_000_000,
    timeoutNs: 500_000_000,
    params: {},
    ...rest,
  };
}
