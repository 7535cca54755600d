/**
 * kernel-footprint (issue 38): the connection-tracking entries and TIME_WAIT sockets each tool leaves per peer,
 * side by side in one run, at 100 and 1,000 peers, every peer probed every 2 s:
 * - `svc agent` (the bundle, as shipped): tcp + udp (5 datagrams) + icmp every 2 s, pmtu at its default 60 s,
 *   against peers that answer as svc agents do (their listener resets a connection closed without a byte);
 * - prometheus-blackbox-exporter, `icmp` and `tcp_connect` modules, a GET /probe per target and module every 2 s
 *   spread over the interval (this process drives it as Prometheus would), tcp against an ordinary server (closes
 *   with a FIN), as a node's services answer;
 * - `fping -l` (icmp) every 2 s.
 * Each tool runs in a network namespace of its own with connection tracking on (an nftables `ct state` rule, as a
 * Kubernetes node has), so the flows it leaves are counted apart; the peers are N addresses (198.19.x.y) of one
 * responder namespace (bench/kernel-footprint/responder.ts), which tracks too: the peers' side of each tool's
 * flows. A full-mesh node holds both: its own probes' flows to a peer and the peer's probes' flows to it.
 *
 *   npm run bench -- kernel-footprint [--peers 100,1000] [--seconds 150]
 *
 * Counts are read every 15 s; the table gives the last reading (--seconds above conntrack's 120 s TIME_WAIT
 * timeout, so a tool's count has settled) and the largest seen. Needs root, nft, ss, ip; conntrack (Debian
 * `conntrack`) or /proc/net/nf_conntrack. A tool not installed is reported as missing.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { AGENT_ENV, AGENT_NODE_FLAGS } from "@svc/core";
import {
  enableConntrack,
  flowsPerPeer,
  listTrackedFlows,
  type PeerFlows,
  run,
  ssAddress,
  type TimeWaitSocket,
  type TrackedFlow,
  timeWaitSockets,
  tryRun,
} from "@svc/lab";
import { AgentUnderTest, buildAgentBundle } from "../lib/agent-run.ts";
import { record, table } from "../lib/report.ts";

const { values } = parseArgs({
  options: {
    peers: { type: "string", default: "100,1000" },
    /** which tools run: agent, blackbox, fping (default all) */
    tools: { type: "string", default: "agent,blackbox,fping" },
    seconds: { type: "string", default: "150" },
  },
});
const counts = values.peers.split(",").map(Number);
const chosen = new Set(values.tools.split(",").map((t) => (t === "blackbox" ? "bb" : t)));
const seconds = Number(values.seconds);
const INTERVAL_MS = 2000;
const SAMPLE_MS = 15_000;
/** responder ports: svc agent listener, ordinary tcp server, udp echo */
const PORT = 8080;
/** the bench's own bridge: 198.18.255.0/24 (lab bridges take 198.18.1-254.0/24) */
const BRIDGE = "svckfbr";
const HUB = "198.18.255.1";
const RESPONDER_NS = "svckf-resp";
const RESPONDER_ADDR = "198.18.255.2";

function which(cmd: string): string | undefined {
  try {
    return execFileSync("sh", ["-c", `command -v ${cmd}`], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
}
const BLACKBOX = which("prometheus-blackbox-exporter") ?? which("blackbox_exporter");
const FPING = which("fping");

/** The i-th peer's address: 198.19.0.1 ... (250 per /24), routed to the responder namespace only. */
const peerAddress = (i: number): string => `198.19.${Math.floor(i / 250)}.${(i % 250) + 1}`;

/** A namespace on the bench bridge with address 198.18.255.<host>. */
async function addNamespace(ns: string, host: number, veth: string): Promise<string> {
  const address = `198.18.255.${host}`;
  await run("ip", ["netns", "add", ns]);
  await run("ip", ["link", "add", `${veth}h`, "type", "veth", "peer", "name", `${veth}n`]);
  await run("ip", ["link", "set", `${veth}n`, "netns", ns]);
  await run("ip", ["link", "set", `${veth}h`, "master", BRIDGE, "up"]);
  const batch = [
    "link set lo up",
    `link set ${veth}n name eth0`,
    `addr add ${address}/24 dev eth0`,
    "link set eth0 up",
  ].join("\n");
  await run("ip", ["-n", ns, "-batch", "-"], { input: `${batch}\n` });
  await run("ip", ["netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv4.ping_group_range=0 2147483647"]);
  return address;
}

/** host ends of the namespaces' veths */
const VETHS = ["kfrh", "kfah", "kfbh", "kffh"];

/** Removes the namespaces, veths and bridge; waits until the kernel has let go of the veths (it does so late). */
async function teardown(namespaces: readonly string[]): Promise<void> {
  for (const ns of namespaces) await tryRun("ip", ["netns", "del", ns]);
  for (const v of VETHS) await tryRun("ip", ["link", "del", v]);
  await tryRun("ip", ["link", "del", BRIDGE]);
  for (let i = 0; i < 100 && VETHS.some((v) => existsSync(`/sys/class/net/${v}`)); i++)
    await new Promise((r) => setTimeout(r, 100));
}

/** A tool under measurement: where it runs and how many probes succeeded. */
interface Tool {
  name: string;
  namespace: string;
  address: string;
  measures: string;
  successes(): Promise<number>;
  stop(): Promise<void>;
}

async function startAgent(ns: string, address: string, peers: string[]): Promise<Tool> {
  const every2s = { interval: "2s", timeout: "1s" };
  const agent = await AgentUnderTest.start({
    targets: { addresses: peers, tcpPort: PORT, udpPort: PORT + 2, close: () => {} },
    variant: { name: "svc agent", nodeArgs: AGENT_NODE_FLAGS, env: AGENT_ENV },
    planes: new Set(["tcp", "udp", "icmp", "pmtu"]),
    // udp: 5 datagrams of 250 ms (the default timeout) fit in the 2 s interval
    checkers: { tcp: every2s, udp: { interval: "2s" }, icmp: every2s },
    scrapeSeconds: 15,
    cgroupName: `kf-${peers.length}-agent`,
    netns: { namespace: ns, address, controllerHost: HUB },
  });
  let last = 0;
  return {
    name: "svc agent",
    namespace: ns,
    address,
    measures: "tcp (connect, total), udp 5 datagrams (RTT, jitter, loss), icmp every 2 s; pmtu every 60 s",
    // a sample may fail on an overloaded machine: the last good one stands (the rate is then an underestimate)
    successes: async () => {
      try {
        last = (await agent.sample()).successes;
      } catch (err) {
        process.stderr.write(`kernel-footprint: agent sample failed: ${(err as Error).message}\n`);
      }
      return last;
    },
    stop: () => agent.stop(),
  };
}

async function startBlackbox(ns: string, address: string, peers: string[]): Promise<Tool> {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-kf-bb-"));
  const cfg = join(dir, "blackbox.yml");
  writeFileSync(
    cfg,
    "modules:\n  icmp:\n    prober: icmp\n    timeout: 1s\n    icmp:\n      preferred_ip_protocol: ip4\n  tcp_connect:\n    prober: tcp\n    timeout: 1s\n    tcp:\n      preferred_ip_protocol: ip4\n",
  );
  const port = 9115;
  const child = spawn(
    "ip",
    [
      "netns",
      "exec",
      ns,
      BLACKBOX!,
      `--config.file=${cfg}`,
      `--web.listen-address=${address}:${port}`,
      "--log.level=warn",
    ],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  const base = `http://${address}:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/-/healthy`)).ok) break;
    } catch {
      // not yet
    }
    if (i > 100 || child.exitCode !== null) throw new Error("blackbox exporter did not start");
    await new Promise((r) => setTimeout(r, 100));
  }
  let ok = 0;
  let skipped = 0;
  /** scrapes in flight: like Prometheus, a target's next scrape waits for its last (no pile-up when overloaded) */
  const inFlight = new Set<string>();
  const scrape = async (module: string, target: string) => {
    const key = `${module} ${target}`;
    if (inFlight.has(key)) {
      skipped++;
      return;
    }
    inFlight.add(key);
    try {
      const res = await fetch(`${base}/probe?module=${module}&target=${target}`, {
        headers: { "X-Prometheus-Scrape-Timeout-Seconds": "2" },
      });
      if (/^probe_success 1$/m.test(await res.text())) ok++;
    } catch {
      // counted as not successful
    } finally {
      inFlight.delete(key);
    }
  };
  // Prometheus spreads a job's targets over the interval: a 100 ms tick fires the targets whose offset is in it
  const t0 = performance.now();
  let next = 0;
  const n = peers.length;
  const tick = setInterval(() => {
    const upTo = Math.floor(((performance.now() - t0) / INTERVAL_MS) * n);
    for (; next <= upTo; next++) {
      const addr = peers[next % n]!;
      void scrape("icmp", addr);
      void scrape("tcp_connect", `${addr}:${PORT + 1}`);
    }
  }, 100);
  return {
    name: "blackbox_exporter",
    namespace: ns,
    address,
    measures: "icmp and tcp_connect (to a server closing with a FIN) per peer every 2 s",
    successes: async () => ok,
    async stop() {
      clearInterval(tick);
      if (skipped > 0)
        process.stderr.write(
          `kernel-footprint: blackbox: ${skipped} scrapes skipped (the last still running)\n`,
        );
      child.kill("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function startFping(ns: string, address: string, peers: string[]): Promise<Tool> {
  const gap = Math.max(1, Math.floor(INTERVAL_MS / peers.length));
  const child: ChildProcess = spawn(
    "ip",
    [
      "netns",
      "exec",
      ns,
      FPING!,
      "-l",
      "-p",
      String(INTERVAL_MS),
      "-i",
      String(gap),
      "-t",
      "1000",
      "-Q",
      "10",
      ...peers,
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let received = 0;
  let buf = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (d: string) => {
    buf += d;
    const lines = buf.split("\n");
    buf = lines.pop() ?? "";
    for (const l of lines) {
      const m = /^(\S+)\s+: xmt\/rcv\/%loss = \d+\/(\d+)\//.exec(l);
      if (m) received += Number(m[2]);
    }
  });
  return {
    name: "fping -l",
    namespace: ns,
    address,
    measures: "icmp per peer every 2 s",
    successes: async () => received,
    async stop() {
      child.kill("SIGTERM");
    },
  };
}

/** One reading of a tool's footprint. */
interface Reading {
  /** the tool's namespace: flows per peer */
  own: PeerFlows[];
  /** the responder namespace: the flows this tool started, per peer */
  peerSide: PeerFlows[];
  /** TIME_WAIT sockets: in the tool's namespace toward peers, in the responder's toward the tool */
  twOwn: number;
  twPeer: number;
}

/** The responder namespace's flows and TIME_WAIT sockets, read once per round of readings. */
interface PeerView {
  flows: TrackedFlow[];
  timeWait: TimeWaitSocket[];
}

async function read(tool: Tool, peers: string[], atPeers: PeerView): Promise<Reading> {
  const own = flowsPerPeer(await listTrackedFlows(tool.namespace), peers);
  const peerSide = flowsPerPeer(
    atPeers.flows.filter((f) => f.src === tool.address),
    peers,
  );
  const peerSet = new Set(peers);
  const twOwn = (await timeWaitSockets(tool.namespace)).filter((s) =>
    peerSet.has(ssAddress(s.remote)),
  ).length;
  const twPeer = atPeers.timeWait.filter((s) => ssAddress(s.remote) === tool.address).length;
  return { own: [...own.values()], peerSide: [...peerSide.values()], twOwn, twPeer };
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const max = (xs: readonly number[]): number => xs.reduce((a, b) => Math.max(a, b), 0);

async function runN(n: number): Promise<string> {
  const peers = Array.from({ length: n }, (_, i) => peerAddress(i));
  const namespaces = [RESPONDER_NS];
  const tools: Tool[] = [];
  let responder: ChildProcess | undefined;
  await teardown(["svckf-agent", "svckf-bb", "svckf-fping", RESPONDER_NS]);
  try {
    await run("ip", ["link", "add", BRIDGE, "type", "bridge"]);
    await run("ip", ["addr", "add", `${HUB}/24`, "dev", BRIDGE]);
    await run("ip", ["link", "set", BRIDGE, "up"]);
    await addNamespace(RESPONDER_NS, 2, "kfr");
    const addrs = peers.map((p) => `addr add ${p}/32 dev lo`).join("\n");
    await run("ip", ["-n", RESPONDER_NS, "-batch", "-"], { input: `${addrs}\n` });
    await enableConntrack(RESPONDER_NS);
    responder = spawn(
      "ip",
      [
        "netns",
        "exec",
        RESPONDER_NS,
        process.execPath,
        "--import",
        "tsx",
        new URL("./responder.ts", import.meta.url).pathname,
        String(PORT),
        ...peers,
      ],
      { stdio: ["pipe", "pipe", "inherit"] },
    );
    await new Promise<void>((resolve, reject) => {
      responder!.stdout!.once("data", () => resolve());
      responder!.once("exit", (c) => reject(new Error(`responder exited ${c}`)));
    });
    const starts: [string, string, number, typeof startAgent | undefined][] = [
      ["svckf-agent", "kfa", 10, startAgent],
      ["svckf-bb", "kfb", 11, BLACKBOX ? startBlackbox : undefined],
      ["svckf-fping", "kff", 12, FPING ? startFping : undefined],
    ];
    for (const [ns, veth, host, start] of starts) {
      if (!start || !chosen.has(ns.slice("svckf-".length))) continue;
      namespaces.push(ns);
      const address = await addNamespace(ns, host, veth);
      await run("ip", ["-n", ns, "route", "add", "198.19.0.0/22", "via", RESPONDER_ADDR]);
      await enableConntrack(ns);
      tools.push(await start(ns, address, peers));
    }
    process.stderr.write(
      `kernel-footprint: N=${n}: ${tools.map((t) => t.name).join(", ")} probing for ${seconds} s\n`,
    );
    const s0 = await Promise.all(tools.map((t) => t.successes()));
    const t0 = performance.now();
    const last: Reading[] = [];
    const worst = tools.map(() => 0);
    /** the worst peer's split, both ends: tcp / udp / icmp */
    const worstSplit = tools.map(() => "");
    // readings start every 15 s until `seconds` have passed (a reading at 1,000 peers takes a while itself)
    let readings = 0;
    for (let next = t0 + SAMPLE_MS; next <= t0 + seconds * 1000; next += SAMPLE_MS) {
      await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
      readings++;
      const atPeers = {
        flows: await listTrackedFlows(RESPONDER_NS),
        timeWait: await timeWaitSockets(RESPONDER_NS),
      };
      for (const [i, t] of tools.entries()) {
        const r = await read(t, peers, atPeers);
        last[i] = r;
        for (const [j, c] of r.own.entries()) {
          const p = r.peerSide[j] ?? c;
          if (c.total + p.total <= worst[i]!) continue;
          worst[i] = c.total + p.total;
          worstSplit[i] = `${c.tcp + p.tcp} / ${c.udp + p.udp} / ${c.icmp + p.icmp}`;
        }
        process.stderr.write(
          `kernel-footprint: N=${n} ${t.name}: ${mean(r.own.map((c) => c.total)).toFixed(1)} own + ${mean(r.peerSide.map((c) => c.total)).toFixed(1)} peer-side flows per peer, TIME_WAIT ${r.twOwn} / ${r.twPeer}\n`,
        );
      }
    }
    const elapsed = (performance.now() - t0) / 1000;
    const s1 = await Promise.all(tools.map((t) => t.successes()));
    const rows = tools.map((t, i) => {
      const r = last[i]!;
      const by = (k: keyof PeerFlows) => mean(r.own.map((c) => c[k])).toFixed(1);
      const both = r.own.map((c, j) => c.total + (r.peerSide[j]?.total ?? 0));
      return [
        t.name,
        ((s1[i]! - s0[i]!) / elapsed).toFixed(0),
        `${by("total")} (${by("tcp")} / ${by("udp")} / ${by("icmp")})`,
        mean(r.peerSide.map((c) => c.total)).toFixed(1),
        `${mean(both).toFixed(1)} (max ${max(both)}, max seen ${worst[i]}: ${worstSplit[i]})`,
        (mean(r.own.map((c) => c.tcpTimeWait)) + mean(r.peerSide.map((c) => c.tcpTimeWait))).toFixed(1),
        `${(r.twOwn / n).toFixed(2)} / ${(r.twPeer / n).toFixed(2)}`,
        String(Math.round(mean(both) * n)),
      ];
    });
    for (const m of [...(BLACKBOX ? [] : ["prometheus-blackbox-exporter"]), ...(FPING ? [] : ["fping"])])
      rows.push([m, "MISSING: not installed", "", "", "", "", "", ""]);
    return `### ${n} peers\n\n${readings} readings over ${elapsed.toFixed(0)} s.\n\n${table(
      [
        "tool",
        "successful probes/s",
        "tracked flows per peer, prober side (tcp / udp / icmp)",
        "peer side",
        "both ends = a mesh node, per peer (max seen: tcp / udp / icmp)",
        "of them in TIME_WAIT",
        "TIME_WAIT sockets per peer, prober / peer",
        "tracked flows a node holds for N peers",
      ],
      rows,
    )}`;
  } finally {
    for (const t of tools) await t.stop();
    responder?.stdin?.end();
    responder?.kill("SIGTERM");
    await teardown(namespaces);
  }
}

if (typeof process.getuid === "function" && process.getuid() !== 0) {
  console.error("kernel-footprint: needs root (network namespaces, nftables)");
  process.exit(1);
}
buildAgentBundle();
const loadStart = loadavg().map((x) => x.toFixed(2));
const sections: string[] = [];
for (const n of counts) sections.push(await runN(n));
record(
  "kernel-footprint (tracked flows and TIME_WAIT per peer: svc agent, blackbox_exporter, fping)",
  `One invocation: the tools ran at once, each in its own network namespace with connection tracking on (an nftables \`ct state\` rule), probing the same ${counts.join(" then ")} peers (addresses of one responder namespace, which tracks too) every 2 s; counts read every 15 s for ${seconds} s, the last reading shown (means over the peers). Prober side: the flows in the tool's namespace; peer side: the flows the tool's probes left in the responder's. A node of a full mesh holds both for each peer (its probes to the peer, the peer's to it): the "both ends" column, the figure issue 38 bounds at 20. svc's peers answer as svc agents (tcp: reset after our FIN); blackbox_exporter's tcp_connect meets an ordinary server (FIN). conntrack timeouts: tcp TIME_WAIT ${readSysctl("nf_conntrack_tcp_timeout_time_wait")} s, tcp CLOSE ${readSysctl("nf_conntrack_tcp_timeout_close")} s, udp ${readSysctl("nf_conntrack_udp_timeout")} s (stream ${readSysctl("nf_conntrack_udp_timeout_stream")} s), icmp ${readSysctl("nf_conntrack_icmp_timeout")} s. Load average (1/5/15 min) at start ${loadStart.join(" / ")}, at end ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" / ")}.\n\n${sections.join("\n\n")}`,
);
process.exit(0);

function readSysctl(name: string): string {
  try {
    return execFileSync("cat", [`/proc/sys/net/netfilter/${name}`], { encoding: "utf8" }).trim();
  } catch {
    return "?";
  }
}
