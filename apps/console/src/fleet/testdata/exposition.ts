/**
 * Test/bench helper: Prometheus text exposition for synthetic agent series, and a small HTTP exporter serving it.
 * `render(n)` gets the 1-based scrape number, so counters can grow from scrape to scrape as real ones do.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** Agent histogram buckets (apps/agent LATENCY_BUCKETS). */
export const BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];

/** Peer labels of a pair; zones are the node names' first letter unless given. */
export function peer(source: string, destination: string, zoneOf: (n: string) => string): string {
  return `source_node="${source}",destination_node="${destination}",source_zone="${zoneOf(source)}",destination_zone="${zoneOf(destination)}"`;
}

/** Lines of a histogram that observed `count` values of `value` seconds (sum = count * value). */
export function histogramLines(name: string, labels: string, value: number, count: number): string[] {
  const out = BUCKETS.map((le) => `${name}_bucket{${labels},le="${le}"} ${value <= le ? count : 0}`);
  out.push(`${name}_bucket{${labels},le="+Inf"} ${count}`);
  out.push(`${name}_sum{${labels}} ${value * count}`, `${name}_count{${labels}} ${count}`);
  return out;
}

/** A running exporter. */
export interface Exporter {
  /** host:port to scrape */
  target: string;
  scrapes(): number;
  close(): Promise<void>;
}

/** Serves `render(scrapeNumber)` on 127.0.0.1 port 0 at /metrics. */
export async function startExporter(render: (n: number) => string): Promise<Exporter> {
  let n = 0;
  const server: Server = createServer((req, res) => {
    if (req.url !== "/metrics") {
      res.writeHead(404).end();
      return;
    }
    n++;
    res.writeHead(200, { "content-type": "text/plain; version=0.0.4" });
    res.end(render(n));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    target: `127.0.0.1:${port}`,
    scrapes: () => n,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
