// npm run bench -- fidelity: our probes' figures against the reference tools' on the same lab paths in the same
// run (RTT vs ping, loss vs nftables-injected loss and ping, PMTU vs tracepath, hops vs mtr --report). Needs root.
// Prints a table and appends it to docs/benchmarks.md.
import { existsSync } from "node:fs";
import { median, type NamespaceProcess, PathLab, parseMtrReport, parsePing, parseTracepath } from "@svc/lab";
import { record, table } from "../lib/report.ts";

const PROBE = "bench/fidelity/ns-probe.ts";
const NA = "n/a (probe not built yet)";
type Fam = 4 | 6;
type Cell = number | string;
const rows: Cell[][] = [];

const fmt = (v: Cell, digits = 3): string => (typeof v === "number" ? v.toFixed(digits) : v);
function row(what: string, unit: string, ours: Cell, ref: Cell, source: string, digits = 3): void {
  const both = typeof ours === "number" && typeof ref === "number";
  const abs = both ? fmt(ours - ref, digits) : "";
  const rel = both && ref !== 0 ? `${(((ours - ref) / ref) * 100).toFixed(1)} %` : "";
  rows.push([what, unit, fmt(ours, digits), fmt(ref, digits), source, abs, rel]);
}

async function withLab(
  opts: Parameters<typeof PathLab.create>[0],
  fn: (lab: PathLab, port: number) => Promise<void>,
): Promise<void> {
  const lab = await PathLab.create(opts);
  let echo: NamespaceProcess<{ port: number }> | undefined;
  try {
    echo = lab.spawnNode<{ port: number }>("B", "bench/fidelity/echo-in-ns.ts");
    await fn(lab, (await echo.ready).port);
  } finally {
    await echo?.stop();
    await lab.destroy();
  }
}

async function rttAndLoss(lab: PathLab, port: number): Promise<void> {
  for (const f of [4, 6] as Fam[]) {
    const r = await lab.runNode<{ ours: number[]; ping: number[] }>("A", PROBE, [
      "rtt",
      lab.address("B", f),
      "10",
      "10",
    ]);
    row(`RTT median v${f} (100 each, interleaved)`, "ms", median(r.ours), median(r.ping), "ping");
  }
  await lab.loss("R1", 10, "icmp");
  for (const f of [4, 6] as Fam[]) {
    const b = lab.address("B", f);
    await lab.loss("R1", 10, "udp", b);
    const udp = await lab.runNode<{ lossRatio: number }>("A", PROBE, [
      "udp-loss",
      b,
      String(port),
      "100",
      "10",
      "50",
    ]);
    row(`udp loss v${f} (1000, 10 % injected at R1)`, "%", udp.lossRatio * 100, 10, "nft numgen", 1);
    const icmp = await lab.runNode<{ lossRatio: number }>("A", PROBE, ["icmp-loss", b, "1000", "2"]);
    const ping = await lab.execStatus("A", "ping", ["-n", "-q", "-c", "1000", "-i", "0.002", "-W", "1", b]);
    const pingLoss = parsePing(ping.stdout).lossRatio * 100;
    row(`icmp loss v${f} (1000, 10 % injected at R1)`, "%", icmp.lossRatio * 100, pingLoss, "ping", 1);
    row(`icmp loss v${f} vs injected`, "%", icmp.lossRatio * 100, 10, "nft numgen", 1);
  }
}

async function pmtu(lab: PathLab, port: number): Promise<void> {
  for (const f of [4, 6] as Fam[]) {
    const what = `PMTU v${f} (R1-B link 1400)`;
    const b = lab.address("B", f);
    await lab.flushPmtu();
    const tp = parseTracepath((await lab.exec("A", "tracepath", ["-n", b])).stdout).pmtu ?? "none";
    await lab.flushPmtu();
    if (!existsSync("apps/agent/src/probes/pmtu.ts")) {
      row(what, "bytes", NA, tp, "tracepath -n");
      continue;
    }
    const ours = await lab.runNode<{ reading: string; pmtuBytes?: number; error?: string }>("A", PROBE, [
      "pmtu",
      b,
      String(port),
    ]);
    const reading = `${ours.reading}${ours.error ? ` (${ours.error})` : ""}`;
    row(`${what}: ${reading}`, "bytes", ours.pmtuBytes ?? "none", tp, "tracepath -n", 0);
    await lab.dropFragNeeded("R1");
    await lab.flushPmtu();
    const bh = await lab.runNode<{ reading: string }>("A", PROBE, ["pmtu", b, String(port)]);
    rows.push([
      `PMTU v${f} frag-needed dropped at R1`,
      "reading",
      bh.reading,
      "blackhole",
      "expected",
      "",
      "",
    ]);
    await lab.heal();
  }
}

interface OurMtr {
  hops: { number: number; ip: string; lossRatio: number }[];
}

async function hops(lab: PathLab): Promise<void> {
  const haveMtr = existsSync("apps/agent/src/probes/mtr.ts");
  for (const f of [4, 6] as Fam[]) {
    const b = lab.address("B", f);
    await lab.hopIcmpLoss("R2", 30);
    const ref = parseMtrReport(
      (await lab.exec("A", "mtr", ["--report", "-n", "-c", "100", "-i", "0.05", "-m", "10", b])).stdout,
    );
    const refHop2 = ref.find((h) => h.number === 2)?.lossRatio ?? Number.NaN;
    if (!haveMtr) {
      row(`hops v${f} (3 routers)`, "count", NA, ref.length, "mtr --report -n", 0);
      continue;
    }
    const ours = await lab.runNode<OurMtr>("A", PROBE, ["mtr", b, "10", "100", "50"], { timeoutMs: 120_000 });
    const same = ours.hops.filter((h, i) => h.ip === ref[i]?.ip).length;
    row(`hops v${f} (3 routers)`, "count", ours.hops.length, ref.length, "mtr --report -n", 0);
    row(`hop addresses equal to mtr's v${f}`, "hops", same, ref.length, "mtr --report -n", 0);
    const ourHop2 = ours.hops.find((h) => h.number === 2)?.lossRatio ?? Number.NaN;
    row(`hop 2 loss v${f} (30 % at R2, 100 rounds)`, "%", ourHop2 * 100, refHop2 * 100, "mtr --report -n", 1);
    await lab.heal();
    await lab.silenceRouter("R2");
    const silent = await lab.runNode<OurMtr>("A", PROBE, ["mtr", b, "10", "5", "50"]);
    const ip2 = silent.hops.find((h) => h.number === 2)?.ip;
    rows.push([
      `silenced R2 v${f}: hop 2 ip`,
      "",
      ip2 === "" ? '"" (silent)' : String(ip2),
      '"" (???)',
      "mtr",
      "",
      "",
    ]);
    await lab.heal();
  }
}

if (process.getuid?.() !== 0) {
  console.error("bench fidelity needs root (network namespaces)");
  process.exit(1);
}
await withLab({ routers: 2, ipv6: true }, rttAndLoss);
await withLab({ routers: 1, ipv6: true, linkMtu: [1500, 1400] }, pmtu);
await withLab({ routers: 3, ipv6: true }, (lab) => hops(lab));
record(
  "fidelity: our probes vs reference tools (same path, same run)",
  table(["case", "unit", "ours", "reference", "reference tool", "abs diff", "rel diff"], rows),
);
