/**
 * The host's floor for console-load: a bare node HTTP server (no framework, no store, one fixed JSON answer of
 * `bodyBytes`) in a child process, driven by the same generator with the same clients. What the console reaches
 * is read against it: the same machine's cost of HTTP on loopback with nothing else done per request.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { cpuMs } from "../lib/proc.ts";
import { quantile } from "../lib/report.ts";
import { drive } from "./drive.ts";

const SERVER = `
  const http = require("node:http");
  const body = Buffer.from(JSON.stringify({ pad: "x".repeat(Number(process.argv[1])) }));
  http.createServer((req, res) => {
    res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
    res.end(body);
  }).listen(0, "127.0.0.1", function () { console.log(this.address().port); });
`;

/** req/s, p50/p99 ms and the server's CPU (fraction of one core) under `clients` loops for `seconds`. */
export async function httpFloor(
  clients: number,
  seconds: number,
  bodyBytes: number,
): Promise<{ rps: number; p50: number; p99: number; serverCpu: number; generatorCpu: number }> {
  const child = spawn(process.execPath, ["-e", SERVER, String(bodyBytes)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const [line] = (await once(child.stdout, "data")) as [Buffer];
    const base = `http://127.0.0.1:${Number(line.toString().trim())}`;
    const pid = child.pid ?? 0;
    const c0 = cpuMs(pid);
    const d = await drive(base, [["floor", "/"]], {}, clients, seconds);
    const serverCpu = (cpuMs(pid) - c0) / 1000 / d.elapsed;
    const xs = d.times.get("floor") ?? [];
    return {
      rps: xs.length / d.elapsed,
      p50: quantile(xs, 0.5),
      p99: quantile(xs, 0.99),
      serverCpu,
      generatorCpu: d.generatorCpu,
    };
  } finally {
    child.kill();
  }
}
