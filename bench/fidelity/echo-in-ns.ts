// Starts our UDP echo server (port 0, IPv4 and IPv6) in the namespace it runs in; prints {"port":N}, runs until
// SIGTERM. Used by the fidelity tests and bench as the peer of probeUdp and probePmtu.
import { EchoServer } from "../../apps/agent/src/echo/echo-server.ts";

const server = new EchoServer({ port: 0 });
await server.start();
console.log(JSON.stringify({ port: server.port }));
process.on("SIGTERM", () => {
  server.stop();
  process.exit(0);
});
setInterval(() => undefined, 60_000);
