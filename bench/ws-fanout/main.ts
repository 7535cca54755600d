/**
 * ws-fanout: the console's live fan-out under load (issue 19). A real console process (console-child.ts: the
 * ConsoleServer, its LiveHub fed as event ingestion feeds it) and `--sockets` WebSocket clients in this process,
 * each subscribed to `live`; the console emits `--rate` events per second for `--seconds`.
 *
 *   npm run bench -- ws-fanout [--sockets 1000] [--rate 1000] [--seconds 30] [--sample 100]
 *
 * Delivery latency: send stamp (in the event, wall clock with sub-ms precision) to arrival at the client, on
 * `--sample` of the sockets (parsing every message of all sockets would make this process, not the console, the
 * bottleneck on 2 cores); every socket counts what it got and any gap. Memory of the console: the working set of
 * its own memory cgroup (root: usage minus inactive file pages, as the kubelet sees it) beside VmRSS, sampled every
 * second; without a cgroup, VmRSS alone (the report says which). Goal (issue 19): p99 < 100 ms, RSS < 300 MiB.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { connect, type Socket } from "node:net";
import { loadavg } from "node:os";
import { createInterface, type Interface } from "node:readline";
import { parseArgs } from "node:util";
import { MemoryCgroup, mib } from "../lib/cgroup.ts";
import { cpuMs, rss } from "../lib/proc.ts";
import { quantile, record, table } from "../lib/report.ts";

const { values } = parseArgs({
  options: {
    sockets: { type: "string", default: "1000" },
    rate: { type: "string", default: "1000" },
    seconds: { type: "string", default: "30" },
    sample: { type: "string", default: "100" },
  },
});
const sockets = Number(values.sockets);
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const sample = Math.min(sockets, Number(values.sample));
if (!(sockets >= 1 && sockets <= 5000) || !(rate >= 1 && rate <= 20_000) || !(seconds >= 1 && seconds <= 600))
  throw new Error("bad --sockets (1-5000) / --rate (1-20000) / --seconds (1-600)");

const wall = () => performance.timeOrigin + performance.now();
const entry = new URL("./console-child.ts", import.meta.url).pathname;
const args = ["--import", "tsx", entry];

// ---- the console, in a memory cgroup of its own when we can make one --------------------------------------------

const cgroup = process.getuid?.() === 0 ? MemoryCgroup.open("ws-fanout", 2 * 2 ** 30) : "not root";
const child: ChildProcess =
  typeof cgroup === "string"
    ? spawn(process.execPath, args, { stdio: ["pipe", "pipe", "inherit"] })
    : cgroup.spawn(process.execPath, args, { stdio: ["pipe", "pipe", "inherit"] });
if (typeof cgroup === "string") console.error(`ws-fanout: no memory cgroup (${cgroup}): VmRSS only`);
const lines: Interface = createInterface({ input: child.stdout! });
const pending: ((line: string) => void)[] = [];
lines.on("line", (l) => pending.shift()?.(l));
const nextLine = () => new Promise<string>((resolve) => pending.push(resolve));
const { url } = JSON.parse(await nextLine()) as { url: string };
const pid = child.pid!;

// ---- the sockets --------------------------------------------------------------------------------------------------

interface Stats {
  events: number;
  gaps: number;
}
const stats: Stats[] = [];
const latencies: number[] = [];
const clients: Socket[] = [];
const { hostname, port } = new URL(url);

/** A client text frame (clients mask; the mask may be zero). */
function clientFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  if (payload.length > 125) throw new Error("bench frames are short");
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length, 0, 0, 0, 0]), payload]);
}

/**
 * A WebSocket client that only finds frame boundaries (no UTF-8 decoding, no per-message objects) except on the
 * sampled sockets, which parse every message: the bench process must not be the bottleneck. Real sockets, the
 * real upgrade and framing.
 */
function open(i: number): Promise<void> {
  const sampled = i < sample;
  const s: Stats = { events: 0, gaps: 0 };
  stats.push(s);
  return new Promise<void>((resolve, reject) => {
    const sock = connect({ host: hostname, port: Number(port) });
    clients.push(sock);
    let handshake: Buffer | undefined = Buffer.alloc(0);
    let pending: Buffer | undefined;
    let skip = 0;
    let head: Buffer[] = [];
    let headLen = 0;
    const keep = () => (sampled ? Number.POSITIVE_INFINITY : 16);
    const done = () => {
      const prefix = head.length === 1 ? head[0]! : Buffer.concat(head);
      head = [];
      headLen = 0;
      const kind = prefix.toString("latin1", 9, 14);
      if (kind === "event") {
        s.events++;
        if (sampled) {
          const at = wall();
          const m = JSON.parse(prefix.toString()) as { data: { payload: { sentAt: number } } };
          latencies.push(at - m.data.payload.sentAt);
        }
      } else if (kind === 'gap",') s.gaps++;
      else if (kind === "subsc") resolve();
    };
    const frames = (chunk: Buffer) => {
      let buf = pending ? Buffer.concat([pending, chunk]) : chunk;
      pending = undefined;
      let i = 0;
      while (i < buf.length) {
        if (skip > 0) {
          const n = Math.min(skip, buf.length - i);
          if (headLen < keep()) {
            head.push(buf.subarray(i, i + n));
            headLen += n;
          }
          i += n;
          skip -= n;
          if (skip === 0) done();
          continue;
        }
        const left = buf.length - i;
        if (left < 2) break;
        const b1 = (buf[i + 1] ?? 0) & 0x7f;
        let len = b1;
        let hl = 2;
        if (b1 === 126) {
          if (left < 4) break;
          len = buf.readUInt16BE(i + 2);
          hl = 4;
        } else if (b1 === 127) {
          if (left < 10) break;
          len = Number(buf.readBigUInt64BE(i + 2));
          hl = 10;
        }
        i += hl;
        skip = len;
        if (len === 0) done();
      }
      if (i < buf.length) pending = Buffer.from(buf.subarray(i));
      buf = Buffer.alloc(0);
    };
    sock.once("error", reject);
    sock.on("data", (chunk: Buffer) => {
      if (handshake === undefined) return frames(chunk);
      handshake = Buffer.concat([handshake, chunk]);
      const end = handshake.indexOf("\r\n\r\n");
      if (end < 0) return;
      if (!handshake.subarray(0, 12).toString().includes("101")) return reject(new Error(String(handshake)));
      const rest = handshake.subarray(end + 4);
      handshake = undefined;
      sock.write(clientFrame(JSON.stringify({ type: "subscribe", topic: "live" })));
      if (rest.length > 0) frames(rest);
    });
    sock.write(
      `GET /ws HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
  });
}

const bare = { rss: rss(pid).now, ws: typeof cgroup === "string" ? undefined : cgroup.memory().workingSet };
const openStart = wall();
for (let i = 0; i < sockets; i += 50)
  await Promise.all(Array.from({ length: Math.min(50, sockets - i) }, (_, k) => open(i + k)));
const openMs = wall() - openStart;

// ---- the run ------------------------------------------------------------------------------------------------------

interface Mem {
  rss: number;
  ws?: number;
}
const memNow = (): Mem => {
  const r = rss(pid).now;
  return typeof cgroup === "string" ? { rss: r } : { rss: r, ws: cgroup.memory().workingSet };
};
const idle = memNow();
const samples: Mem[] = [];
const sampler = setInterval(() => samples.push(memNow()), 1000);
const cpu0 = cpuMs(pid);
const benchCpu0 = cpuMs(process.pid);
const load0 = loadavg()[0] ?? 0;
const t0 = wall();
child.stdin!.write(`go ${rate} ${seconds}\n`);
const { done } = JSON.parse(await nextLine()) as { done: number };
const runMs = wall() - t0;
// let the last events arrive (bounded)
const expected = done * sockets;
for (let i = 0; i < 100 && stats.reduce((n, s) => n + s.events + s.gaps, 0) < expected; i++)
  await new Promise((r) => setTimeout(r, 50));
clearInterval(sampler);
const cpu = cpuMs(pid) - cpu0;
const benchCpu = cpuMs(process.pid) - benchCpu0;

for (const sock of clients) sock.destroy();
child.stdin!.write("stop\n");
await new Promise((r) => child.once("exit", r));
if (typeof cgroup !== "string") await cgroup.remove();

// ---- report -------------------------------------------------------------------------------------------------------

const delivered = stats.reduce((n, s) => n + s.events, 0);
const gaps = stats.reduce((n, s) => n + s.gaps, 0);
const peak = (f: (m: Mem) => number | undefined) => samples.reduce((a, m) => Math.max(a, f(m) ?? 0), 0);
const ms = (v: number) => v.toFixed(1);
const rows: (string | number)[][] = [
  ["sockets (sampled for latency)", `${sockets} (${sample})`],
  ["events emitted / rate / duration", `${done} / ${rate}/s / ${seconds} s`],
  [
    "messages delivered / expected",
    `${delivered} / ${expected} (${((100 * delivered) / expected).toFixed(2)} %)`,
  ],
  ["slow-consumer gaps", gaps],
  [
    "delivery latency p50 / p99 / max (ms)",
    `${ms(quantile(latencies, 0.5))} / ${ms(quantile(latencies, 0.99))} / ${ms(latencies.reduce((a, b) => Math.max(a, b), 0))}`,
  ],
  ["console CPU (% of one core)", ((100 * cpu) / runMs).toFixed(0)],
  ["bench clients CPU (% of one core)", ((100 * benchCpu) / runMs).toFixed(0)],
  ["load average at start / end (1 min)", `${load0.toFixed(1)} / ${loadavg()[0]?.toFixed(1)}`],
  [
    "console VmRSS before sockets / idle with sockets / peak (MiB)",
    `${mib(bare.rss)} / ${mib(idle.rss)} / ${mib(peak((m) => m.rss))}`,
  ],
];
if (idle.ws !== undefined)
  rows.push([
    "console cgroup working set before sockets / idle with sockets / peak (MiB)",
    `${mib(bare.ws ?? 0)} / ${mib(idle.ws)} / ${mib(peak((m) => m.ws))}`,
  ]);
rows.push(["opening the sockets (ms)", ms(openMs)]);
const p99 = quantile(latencies, 0.99);
const goal = `goal p99 < 100 ms: ${p99 < 100 ? "met" : "missed"}; RSS < 300 MiB: ${peak((m) => m.rss) < 300 * 2 ** 20 ? "met" : "missed"}`;
record(
  "ws-fanout",
  `\`npm run bench -- ws-fanout --sockets ${sockets} --rate ${rate} --seconds ${seconds} --sample ${sample}\`: one console process ` +
    `(${typeof cgroup === "string" ? "no memory cgroup: VmRSS only" : "in a memory cgroup of its own"}), ` +
    `the sockets in the bench process on the same 2 cores.\n\n${table(["", "value"], rows)}\n\n${goal}`,
);
process.exit(0);
