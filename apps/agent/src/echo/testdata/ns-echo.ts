// Runs inside a test network namespace (veth v0 198.18.77.1/24, fd00:198:18::1/64): starts an EchoServer and
// sends it a unicast control datagram plus broadcast and multicast ones; prints the server's stats as JSON.
import { createSocket } from "node:dgram";
import { EchoServer } from "../echo-server.ts";

const server = new EchoServer({ port: 0 });
await server.start();
const port = server.port;
const c4 = createSocket("udp4");
await new Promise<void>((r) => c4.bind(0, "198.18.77.1", r));
c4.setBroadcast(true);
c4.setMulticastInterface("198.18.77.1");
const c6 = createSocket({ type: "udp6", ipv6Only: true });
await new Promise<void>((r) => c6.bind(0, "::", r));
c6.setMulticastInterface("::%v0");
let replies = 0;
c4.on("message", () => replies++);
c6.on("message", () => replies++);
const send = (s: typeof c4, addr: string) =>
  new Promise<void>((resolve, reject) =>
    s.send(Buffer.from("x"), port, addr, (e) => (e ? reject(e) : resolve())),
  );
await send(c4, "198.18.77.1");
await send(c4, "255.255.255.255");
await send(c4, "198.18.77.255");
await send(c4, "224.0.0.1");
await send(c6, "ff02::1%v0");
await new Promise((r) => setTimeout(r, 300));
console.log(JSON.stringify({ stats: server.stats(), replies }));
server.stop();
c4.close();
c6.close();
