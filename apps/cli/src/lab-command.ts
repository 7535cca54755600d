import { recordingRulesYaml } from "@svc/console/recording-rules";
import {
  allStates,
  callControl,
  destroyAllPathLabs,
  destroyNetwork,
  healLab,
  injectFault,
  isRoot,
  Lab,
  type LabOptions,
  type LabState,
  listLabBridges,
  listLabNamespaces,
  PATH_LAB_USAGE,
  parseFault,
  readState,
  removeStaleLabs,
  removeState,
} from "@svc/lab";
import { type Args, allowFlags, stringFlag, UsageError } from "./args.ts";
import { onStopRequest } from "./stop-request.ts";

export const LAB_USAGE = `usage:
  svc lab [--agents N] [--zones N] [--no-netns] [--no-prometheus] [--no-console] [--dir DIR] [--interval DURATION]
          [--metrics prometheus|victoria-metrics]
      start a controller, N agents (default 3) in N zones (default 2), Prometheus and the console; Ctrl-C stops
      everything (in the background: nohup npx svc lab > lab.log 2>&1 &   stop it with kill -TERM <pid>);
      --metrics victoria-metrics: victoria-metrics, vmagent and vmalert instead of Prometheus
  svc lab fault drop FROM TO [tcp|udp|icmp|all]      drop probes from FROM to TO
  svc lab fault loss FROM TO PERCENT [tcp|udp|icmp|all]
  svc lab fault partition A B                          cut A and B apart both ways
  svc lab fault mtu NODE BYTES                         NODE's eth0 MTU (bigger frames to it vanish silently)
  svc lab fault blackhole FROM TO [BYTES]              TO's packets back to FROM over BYTES vanish, no ICMP
  svc lab fault hoploss NODE PERCENT                   loss on NODE's echo replies and time-exceeded
  svc lab fault isolate NODE [in|out|both]             cut NODE off from its peers (every protocol)
  svc lab fault down NODE [agent|link]                 kill NODE's agent (heal starts it), or take its link down
  svc lab fault zones ZONE ZONE                        partition two zones (every pair between them)
  svc lab fault block NODE tcp|udp|icmp [in|out]       one protocol blocked to (in) or from (out) NODE
  svc lab fault flap A B [PERIOD-SECONDS]              the link A-B down half of every period (default 20)
  svc lab fault loss NODE PERCENT                      loss on NODE's link, both ways
  svc lab heal                                         remove every fault (stopped agents start again)
  svc lab status                                       show the running lab and its faults
  svc lab down [--all]                                 remove leftovers of labs whose process is gone (--all: every lab)
  (fault, heal and status take --lab INDEX when several labs run)
multi-hop paths (routers between two hosts, per-link MTU, IPv6):
${PATH_LAB_USAGE}`;

/** `svc lab ...` */
export async function labCommand(args: Args): Promise<number> {
  const sub = args.words[1];
  const labIndex = stringFlag(args, "lab");
  const index = labIndex === undefined ? undefined : Number(labIndex);
  switch (sub) {
    case undefined:
    case "up":
      return runLab(args);
    case "fault": {
      allowFlags(args, ["lab"]);
      const words = args.words.slice(2);
      const fault = parseFault(words);
      const state = readState(index);
      if (state.control) await callControl(state, "POST", "/fault", { words });
      else await injectFault(state, fault);
      console.log(`fault injected: ${words.join(" ")}`);
      return 0;
    }
    case "heal": {
      allowFlags(args, ["lab"]);
      const state = readState(index);
      if (state.control) await callControl(state, "POST", "/heal");
      else await healLab(state);
      console.log("all faults healed");
      return 0;
    }
    case "status": {
      allowFlags(args, ["lab", "json"]);
      const read = readState(index);
      const state = read.control ? await callControl(read, "GET", "/status") : read;
      console.log(
        args.flags.has("json")
          ? JSON.stringify({ ...state, control: undefined }, null, 2)
          : statusText(state),
      );
      return 0;
    }
    case "down":
      allowFlags(args, ["all"]);
      return down(args);
    default:
      throw new UsageError(`unknown lab command "${sub}"`);
  }
}

/** `svc lab status`: the lab, its nodes with their zones, and the faults in place. */
export function statusText(s: LabState): string {
  const lines = [
    `lab ${s.index} (pid ${s.pid}${s.netns ? ", network namespaces" : ", loopback"}): ${s.dir}`,
    `  controller ${s.controllerUrl}${s.prometheusUrl ? `   ${s.evaluatorUrl ? "metrics" : "prometheus"} ${s.prometheusUrl}` : ""}${s.evaluatorUrl ? `   vmalert ${s.evaluatorUrl}` : ""}`,
    ...s.nodes.map((n) => `  ${n.name.padEnd(10)} ${(n.zone ?? "").padEnd(8)} ${n.address}`),
  ];
  const faults = s.faults ?? [];
  lines.push(faults.length === 0 ? "faults: none" : `faults (${faults.length}):`);
  for (const f of faults) lines.push(`  ${f.words.padEnd(40)} since ${f.since}`);
  return lines.join("\n");
}

/** What `svc lab` is asked for: its flags, read. */
export interface SvcLabChoices {
  agents: number;
  /** zones the agents are spread over, round-robin (zone-a, zone-b, ...) */
  zones?: number;
  netns: boolean;
  /** false: --no-prometheus */
  prometheus: boolean;
  /** --metrics: the metrics backend (default prometheus) */
  metrics?: "prometheus" | "victoria-metrics";
  /** false: --no-console */
  console: boolean;
  dir?: string;
  /** --interval: the tcp, udp, icmp and dns checkers' interval */
  interval?: string;
  log?: (line: string) => void;
}

/**
 * The lab `svc lab` starts (tests start the same one): the console's recording rules in Prometheus, and external
 * checks on every agent for targets in the lab's 198.18.0.0/15, so check definitions, schedules and runs on
 * targets work in a fresh lab (the contract's examples run against it).
 */
export function svcLabOptions(choices: SvcLabChoices): LabOptions {
  const checkers: Record<string, unknown> = {
    external: { enabled: true, allowedCidrs: ["198.18.0.0/15"] },
  };
  if (choices.interval) {
    for (const c of ["tcp", "udp", "icmp", "dns"]) checkers[c] = { interval: choices.interval };
  }
  return {
    agents: choices.agents,
    ...(choices.zones === undefined ? {} : { zones: zoneNames(choices.zones) }),
    netns: choices.netns,
    prometheus: choices.prometheus ? undefined : false,
    ...(choices.metrics === "victoria-metrics" ? { metrics: "victoria-metrics" as const } : {}),
    // the console's recording rules: matrix refreshes read their series; the lab's agents export their pair state,
    // so the rules leave out the "now" group older agents need (recording-rules.ts)
    prometheusRules: [{ name: "svc-recording-rules.yml", yaml: recordingRulesYaml("svc", 5, 15, false) }],
    console: choices.console,
    dir: choices.dir,
    config: { checkers },
    log: choices.log,
  };
}

/** zone-a, zone-b, ... for `n` zones (1-26). */
export function zoneNames(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `zone-${String.fromCharCode(97 + i)}`);
}

async function runLab(args: Args): Promise<number> {
  allowFlags(args, [
    "agents",
    "zones",
    "no-netns",
    "no-prometheus",
    "no-console",
    "dir",
    "interval",
    "metrics",
  ]);
  const metrics = stringFlag(args, "metrics") ?? "prometheus";
  if (metrics !== "prometheus" && metrics !== "victoria-metrics")
    throw new UsageError(`--metrics must be prometheus or victoria-metrics, got "${metrics}"`);
  if (metrics === "victoria-metrics" && args.flags.has("no-prometheus"))
    throw new UsageError("--metrics victoria-metrics and --no-prometheus exclude each other");
  const zonesFlag = stringFlag(args, "zones");
  const zones = zonesFlag === undefined ? undefined : Number(zonesFlag);
  if (zones !== undefined && (!Number.isInteger(zones) || zones < 1 || zones > 26)) {
    throw new UsageError(`--zones must be an integer 1-26, got "${zonesFlag}"`);
  }
  const agentsFlag = stringFlag(args, "agents");
  const agents = agentsFlag === undefined ? 3 : Number(agentsFlag);
  if (!Number.isInteger(agents) || agents < 1 || agents > 200) {
    throw new UsageError(`--agents must be an integer 1-200, got "${agentsFlag}"`);
  }
  const netns = args.flags.has("no-netns") ? false : isRoot();
  if (!netns) console.log("lab: running on loopback (network namespaces need root)");
  const lab = new Lab(
    svcLabOptions({
      agents,
      zones,
      netns,
      prometheus: !args.flags.has("no-prometheus"),
      metrics,
      console: !args.flags.has("no-console"),
      dir: stringFlag(args, "dir"),
      interval: stringFlag(args, "interval"),
      log: (line) => console.log(`lab: ${line}`),
    }),
  );
  let stopped: Promise<void> | undefined;
  let wake = (): void => {};
  const stop = (reason: string): void => {
    if (stopped) return;
    console.log(`\nlab: ${reason}: stopping ...`);
    stopped = lab.stop().then(() => console.log("lab: stopped, nothing left running"));
    wake();
  };
  // the terminal or the pipe may be gone by the time a stop arrives (SIGHUP, a killed wrapper): a failed write of
  // progress text must not end the process before its cleanup
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined);
  const dispose = onStopRequest(stop, (why) => console.log(`lab: ${why}`));
  try {
    try {
      await lab.start();
    } catch (err) {
      // a stop request during the start: the start gave up and the lab is torn down
      if (stopped) {
        await stopped;
        return 0;
      }
      throw err;
    }
    printLab(lab);
    if (!stopped) await new Promise<void>((resolve) => (wake = resolve));
    await stopped;
    return 0;
  } finally {
    dispose();
  }
}

function printLab(lab: Lab): void {
  console.log("");
  console.log(
    `svc lab ${lab.index} is up (${lab.nodes.length} agents${lab.netns ? ", one network namespace each" : ""})`,
  );
  if (lab.consoleUrl) {
    const admin = lab.consoleAdmin;
    console.log(
      `  console          ${lab.consoleUrl}   (sign in as ${admin?.username} / ${admin?.password})`,
    );
  }
  console.log(`  controller API   ${lab.controllerUrl}/api/v1/topology`);
  console.log(`  controller metrics ${lab.controllerMetricsUrl}/metrics`);
  for (const n of lab.nodes)
    console.log(`  agent ${n.name.padEnd(10)} ${n.httpUrl}  metrics ${n.metricsUrl}/metrics`);
  if (lab.prometheusUrl && lab.evaluatorUrl) {
    console.log(
      `  victoria-metrics ${lab.prometheusUrl}   (query endpoint, vmui at ${lab.prometheusUrl}/vmui)`,
    );
    console.log(`  vmalert          ${lab.evaluatorUrl}   (rules and alerts)`);
  } else if (lab.prometheusUrl) console.log(`  prometheus       ${lab.prometheusUrl}`);
  console.log(`  logs and configs ${lab.dir}`);
  console.log(`Press Ctrl-C (or kill -TERM ${process.pid}) to stop everything.`);
}

/**
 * `svc lab down`: removes the network (bridge, namespaces) and state file of every lab whose state file names a
 * process that is gone (pid and start time) and whose bridge is still the one it made; a lab whose process runs
 * keeps everything, and a bridge or namespace no state file accounts for (a lab still starting, another
 * SVC_LAB_STATE_DIR, a test's bridge) is listed and left alone. `--all` removes every lab network, running or
 * not, every state file and every path lab.
 */
async function down(args: Args): Promise<number> {
  if (!isRoot()) {
    console.log("nothing to remove: labs without root use no network namespaces");
    return 0;
  }
  if (args.flags.has("all")) {
    let removed = 0;
    for (const index of await listLabBridges()) {
      await destroyNetwork(index, await listLabNamespaces(index));
      removed++;
    }
    for (const ns of await listLabNamespaces())
      await destroyNetwork(Number(/^svc(\d+)-/.exec(ns)?.[1]), [ns]);
    for (const s of allStates()) removeState(s);
    console.log(`removed ${removed} lab network(s)`);
    console.log(`removed ${await destroyAllPathLabs()} path lab(s)`);
    return 0;
  }
  const r = await removeStaleLabs();
  console.log(
    `removed ${r.removed.length} stale lab network(s)${r.removed.length ? `: ${r.removed.join(", ")}` : ""}`,
  );
  if (r.staleStates.length > 0) {
    console.log(
      `removed the state of gone lab(s) whose network was already gone: ${r.staleStates.join(", ")}`,
    );
  }
  if (r.running.length > 0) console.log(`kept running lab(s): ${r.running.join(", ")}`);
  if (r.unclaimed.length > 0) {
    console.log(
      "left alone, no lab state file names them (a lab still starting, one with another SVC_LAB_STATE_DIR, a " +
        "test's network, or a lab killed before it wrote its state); `svc lab down --all` removes them:",
    );
    for (const u of r.unclaimed) {
      const what = [
        ...(u.bridge ? [`bridge svcbr${u.index}`] : []),
        ...u.namespaces.map((n) => `namespace ${n}`),
      ];
      console.log(`  ${what.join(", ")}`);
    }
  }
  return 0;
}
