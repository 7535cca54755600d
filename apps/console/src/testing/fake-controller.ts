/**
 * Test helper: a stand-in controller on 127.0.0.1 answering GET /api/v1/topology with a fixed snapshot and
 * POST /api/v1/diagnostics with a successful tcp CheckResult for the pair asked.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { TopologySnapshot } from "@svc/protocol";

/** A running fake controller. */
export interface FakeController {
  url: string;
  /** POST /api/v1/diagnostics requests answered so far (each one a probe a real controller would send) */
  diagnostics(): number;
  close(): Promise<void>;
}

/** A snapshot of `names` (one ready node and one agent each, zone `z1`). */
export function snapshotOf(names: readonly string[]): TopologySnapshot {
  return {
    nodes: names.map((name) => ({ name, zone: "z1", ready: true })),
    agents: names.map((name, i) => ({
      id: `agent-${name}`,
      nodeName: name,
      podIP: `10.0.0.${i + 1}`,
      zone: "z1",
      capabilities: [],
    })),
    timestamp: new Date(Date.UTC(2026, 0, 1)).toISOString(),
  };
}

/** Starts a fake controller serving `snapshot`. */
export async function startFakeController(snapshot: TopologySnapshot): Promise<FakeController> {
  let diagnostics = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      res.setHeader("content-type", "application/json");
      if (req.method === "GET" && req.url === "/api/v1/topology") {
        res.end(JSON.stringify(snapshot));
        return;
      }
      if (req.method === "POST" && req.url?.startsWith("/api/v1/diagnostics")) {
        diagnostics++;
        const asked = JSON.parse(Buffer.concat(chunks).toString() || "{}") as Record<string, unknown>;
        res.end(
          JSON.stringify({
            type: "tcp",
            success: true,
            source: String(asked.source),
            destination: String(asked.destination),
            sourceZone: "z1",
            destZone: "z1",
            duration: 1_000_000,
            details: {},
          }),
        );
        return;
      }
      res.statusCode = 404;
      res.end(JSON.stringify({ error: "not found" }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    diagnostics: () => diagnostics,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
