/**
 * ws-fanout's console: a real ConsoleServer (anonymous mode, no database, loopback, port 0, no per-address cap:
 * every bench socket comes from 127.0.0.1) whose live hub is fed as event ingestion feeds it (FeedSink.event).
 * Prints `{"url": ...}` on stdout; then on stdin `go <rate> <seconds>` emits `rate` events per second for
 * `seconds` (in 10 ms ticks, as a busy controller stream delivers them) stamped with their send time, and prints
 * `{"done": <events>}`.
 */
import { createInterface } from "node:readline";
import type { FeedEvent } from "@svc/contract";
import { parseConsoleConfig } from "../../apps/console/src/config/load.ts";
import { ConsoleServer } from "../../apps/console/src/server.ts";

const { config } = parseConsoleConfig(
  "websocket: { maxConnections: 0, maxConnectionsPerAddress: 0, maxConnectionsPerSubject: 0 }\n",
  {},
);
const server = new ConsoleServer({
  config,
  host: "127.0.0.1",
  httpPort: 0,
  metricsPort: 0,
  version: "bench",
  webRoot: false,
});
await server.start();
server.live.fed(true, Date.now());
process.stdout.write(`${JSON.stringify({ url: server.httpUrl })}\n`);

const wall = () => performance.timeOrigin + performance.now();

function event(n: number): FeedEvent {
  return {
    id: `bench-${n}`,
    at: new Date().toISOString(),
    type: "CheckObserved",
    severity: "warn",
    scope: `node-${n % 50}->node-${(n + 7) % 50}`,
    summary: `CheckObserved tcp node-${n % 50} -> node-${(n + 7) % 50}: failed (connection refused)`,
    payload: { sentAt: wall(), protocol: "tcp", ok: false, error: "connection refused", latencyMs: 0.4 },
  };
}

for await (const line of createInterface({ input: process.stdin })) {
  const [cmd, rateText, secondsText] = line.trim().split(" ");
  if (cmd === "stop") break;
  if (cmd !== "go") continue;
  const rate = Number(rateText);
  const seconds = Number(secondsText);
  const start = wall();
  let sent = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const elapsed = wall() - start;
      const due = Math.min(rate * seconds, Math.floor((elapsed / 1000) * rate));
      while (sent < due) server.live.event(event(sent++));
      if (elapsed >= seconds * 1000) {
        clearInterval(timer);
        resolve();
      }
    }, 10);
  });
  process.stdout.write(`${JSON.stringify({ done: sent })}\n`);
}
await server.stop();
process.exit(0);
