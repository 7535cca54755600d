// Child script the path-probe tests run inside PathLab namespaces. Prints one JSON line per result.
//   serve <port>: the agent's UDP echo server (v4 + v6) and a TCP listener on <port>; runs until stdin closes.
//   pmtu <address> <port> <timeoutMs> <size> [times]: probePmtu, `times` runs in a row (default 1), as an array.
//   mtr <address> <maxHops> <rounds> <intervalMs> <timeoutMs>: probeMtr.
//   all <address> <port>: tcp, udp, icmp (ping sockets only), pmtu and mtr to one peer, with socket kinds.
//   rawcheck <address>: opens a raw ICMP socket (fails with EPERM without CAP_NET_RAW).
//   tcp <address> <port> <timeoutMs> <times>: probeTcp `times` runs in a row on a CoalescingClock, as an array.
import net from "node:net";
import { RawSocket } from "@svc/native";
import { CoalescingClock } from "../../clock/probe-clock.ts";
import { EchoServer } from "../../echo/echo-server.ts";
import { createIcmpProber } from "../icmp.ts";
import { probeMtr } from "../mtr.ts";
import { probePmtu } from "../pmtu.ts";
import { probeTcp } from "../tcp.ts";
import { probeUdp } from "../udp.ts";

const [mode = "", ...args] = process.argv.slice(2);
const num = (i: number, fallback = 0): number => Number(args[i] ?? fallback);
const address = args[0] ?? "";

if (mode === "serve") {
  const port = num(0);
  const echo = new EchoServer({ port });
  await echo.start();
  const tcp4 = net.createServer((c) => c.on("data", () => {}).on("end", () => c.end()));
  const tcp6 = net.createServer((c) => c.on("data", () => {}).on("end", () => c.end()));
  await new Promise<void>((r) => tcp4.listen(port, "0.0.0.0", r));
  await new Promise<void>((r) => tcp6.listen({ port, host: "::", ipv6Only: true }, r));
  console.log(JSON.stringify({ ready: true, port: echo.port }));
  process.stdin.resume();
  process.stdin.on("close", () => {
    echo.stop();
    tcp4.close();
    tcp6.close();
    process.exit(0);
  });
} else if (mode === "pmtu") {
  const out = [];
  for (let i = 0; i < num(4, 1); i++) {
    out.push(await probePmtu({ address, port: num(1), timeoutMs: num(2), size: num(3) }));
  }
  console.log(JSON.stringify(out));
} else if (mode === "mtr") {
  const r = await probeMtr({
    address,
    maxHops: num(1),
    rounds: num(2),
    intervalMs: num(3),
    timeoutMs: num(4),
  });
  console.log(JSON.stringify(r));
} else if (mode === "all") {
  const port = num(1);
  const icmp = createIcmpProber({ forbidRaw: true });
  const family = net.isIP(address) as 4 | 6;
  const result = {
    tcp: (await probeTcp({ address, port, timeoutMs: 1000 })).ok,
    udp: (await probeUdp({ address, port, timeoutMs: 500, packets: 3 })).received,
    icmp: (await icmp.probe({ address, timeoutMs: 1000, count: 3 })).received,
    icmpKind: icmp.socketKind(family),
    pmtu: await probePmtu({ address, port, timeoutMs: 500, size: 0 }),
    mtr: await probeMtr({ address, maxHops: 8, rounds: 2, intervalMs: 50, timeoutMs: 500, forbidRaw: true }),
  };
  icmp.close();
  console.log(JSON.stringify(result));
} else if (mode === "tcp") {
  const clock = new CoalescingClock();
  const out = [];
  for (let i = 0; i < num(3, 1); i++)
    out.push(await probeTcp({ address, port: num(1), timeoutMs: num(2) }, clock));
  console.log(JSON.stringify(out));
} else if (mode === "rawcheck") {
  RawSocket.open({ family: net.isIP(address) as 4 | 6, kind: "icmp-raw" }).close();
  console.log(JSON.stringify({ raw: true }));
} else {
  throw new Error(`unknown mode ${mode}`);
}
