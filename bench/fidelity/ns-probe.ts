// Runs one of our probes inside the namespace it is started in (via runInNamespace) and prints one JSON line.
//   rtt ADDR BLOCKS PER          our icmp prober and iputils ping interleaved in blocks of PER (10 ms spacing)
//   icmp-loss ADDR COUNT GAP_MS  our icmp prober, COUNT echo requests GAP_MS apart
//   udp-loss ADDR PORT RUNS PACKETS TIMEOUT_MS   probeUdp runs (a new socket each) against an EchoServer
//   pmtu ADDR PORT               K1's probePmtu (size 0 = egress MTU)
//   mtr ADDR MAXHOPS ROUNDS INTERVAL_MS   K1's probeMtr
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { parsePing } from "@svc/lab";
import { createIcmpProber } from "../../apps/agent/src/probes/icmp.ts";
import { probeUdp } from "../../apps/agent/src/probes/udp.ts";

const [mode = "", ...args] = process.argv.slice(2);
const num = (i: number): number => Number(args[i]);
const addr = args[0] ?? "";
const exec = promisify(execFile);

async function rtt(): Promise<unknown> {
  const prober = createIcmpProber();
  const ours: number[] = [];
  const ping: number[] = [];
  try {
    for (let b = 0; b < num(1); b++) {
      const r = await prober.probe({ address: addr, count: num(2), intervalMs: 10, timeoutMs: 1000 });
      ours.push(...r.rtts);
      const p = await exec("ping", ["-n", "-c", String(num(2)), "-i", "0.01", "-W", "1", addr]).catch(
        (e: { stdout?: string }) => ({ stdout: e.stdout ?? "" }),
      );
      ping.push(...parsePing(p.stdout).rttsMs);
    }
    return { ours, ping, kind: prober.socketKind(addr.includes(":") ? 6 : 4) };
  } finally {
    prober.close();
  }
}

async function icmpLoss(): Promise<unknown> {
  const prober = createIcmpProber();
  try {
    const r = await prober.probe({ address: addr, count: num(1), intervalMs: num(2), timeoutMs: 1000 });
    return { sent: r.sent, received: r.received, lossRatio: r.lossRatio };
  } finally {
    prober.close();
  }
}

async function udpLoss(): Promise<unknown> {
  let sent = 0;
  let received = 0;
  const runs = num(2);
  const lanes = 4;
  const lane = async (first: number): Promise<void> => {
    for (let i = first; i < runs; i += lanes) {
      const r = await probeUdp({ address: addr, port: num(1), packets: num(3), timeoutMs: num(4) });
      sent += r.sent;
      received += r.received;
    }
  };
  await Promise.all(Array.from({ length: lanes }, (_, i) => lane(i)));
  return { sent, received, lossRatio: sent ? 1 - received / sent : 1 };
}

async function pmtu(): Promise<unknown> {
  const { probePmtu } = await import("../../apps/agent/src/probes/pmtu.ts");
  return probePmtu({ address: addr, port: num(1), timeoutMs: 1000, size: 0 });
}

async function mtr(): Promise<unknown> {
  const { probeMtr } = await import("../../apps/agent/src/probes/mtr.ts");
  return probeMtr({ address: addr, maxHops: num(1), rounds: num(2), intervalMs: num(3), timeoutMs: 500 });
}

const modes: Record<string, () => Promise<unknown>> = {
  rtt,
  "icmp-loss": icmpLoss,
  "udp-loss": udpLoss,
  pmtu,
  mtr,
};
const fn = modes[mode];
if (!fn) throw new Error(`unknown mode "${mode}" (${Object.keys(modes).join(", ")})`);
console.log(JSON.stringify(await fn()));
