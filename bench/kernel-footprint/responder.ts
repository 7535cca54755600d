/**
 * The peers of bench/kernel-footprint, run inside the responder namespace (`ip netns exec NS node --import tsx
 * responder.ts FIRST_PORT ADDRESS...`): for every address, as its peer would answer
 * - tcp FIRST_PORT: an svc agent's listener (node:http with the agent's resetBareCloses: a connection closed
 *   without a byte sent is reset);
 * - tcp FIRST_PORT+1: an ordinary server (closes with a FIN once the client has closed), what blackbox_exporter's
 *   tcp_connect meets on a node's services;
 * - udp FIRST_PORT+2: an echo, one socket per address (so each reply leaves from the address probed, as a pod's
 *   echo server answers from its one address);
 * the kernel answers icmp. Prints `ready` on stdout once all listen; exits when stdin closes.
 */
import { createSocket, type Socket } from "node:dgram";
import { createServer as createHttpServer } from "node:http";
import { createServer } from "node:net";
import { resetBareCloses } from "../../apps/agent/src/http/bare-close-reset.ts";

const [first, ...addresses] = process.argv.slice(2);
const base = Number(first);

const agentListener = createHttpServer((_req, res) => res.end("ok"));
resetBareCloses(agentListener);
const ordinary = createServer({ allowHalfOpen: true }, (s) => {
  s.on("error", () => {});
  s.resume();
  s.on("end", () => s.end());
});
const echoes: Socket[] = [];

await new Promise<void>((r) => agentListener.listen({ port: base, host: "0.0.0.0", backlog: 4096 }, r));
await new Promise<void>((r) => ordinary.listen({ port: base + 1, host: "0.0.0.0", backlog: 4096 }, r));
for (const address of addresses) {
  const u = createSocket("udp4");
  u.on("message", (msg, rinfo) => u.send(msg, rinfo.port, rinfo.address));
  u.on("error", () => {});
  await new Promise<void>((r) => u.bind(base + 2, address, r));
  echoes.push(u);
}
process.stdout.write("ready\n");
process.stdin.resume();
process.stdin.on("end", () => {
  agentListener.close();
  ordinary.close();
  for (const u of echoes) u.close();
  process.exit(0);
});
