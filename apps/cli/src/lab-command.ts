import { recordingRulesYaml } from "@svc/console/recording-rules";
import {
  allStates,
  destroyAllPathLabs,
  destroyNetwork,
  healLab,
  injectFault,
  isRoot,
  Lab,
  type LabOptions,
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
  svc lab [--agents N] [--no-netns] [--no-prometheus] [--no-console] [--dir DIR] [--interval DURATION]
      start a controller, N agents (default 3), Prometheus and the console; Ctrl-C stops everything
  svc lab fault drop FROM TO [tcp|udp|icmp|all]      drop probes from FROM to TO
  svc lab fault loss FROM TO PERCENT [tcp|udp|icmp|all]
  svc lab fault partition A B                          cut A and B apart both ways
  svc lab fault mtu NODE BYTES                         NODE's eth0 MTU (bigger frames to it vanish silently)
  svc lab fault blackhole FROM TO [BYTES]              TO's packets back to FROM over BYTES vanish, no ICMP
  svc lab fault hoploss NODE PERCENT                   loss on NODE's echo replies and time-exceeded
  svc lab heal                                         remove every fault
  svc lab status                                       show the running lab
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
      const fault = parseFault(args.words.slice(2));
      await injectFault(readState(index), fault);
      console.log(`fault injected: ${args.words.slice(2).join(" ")}`);
      return 0;
    }
    case "heal":
      allowFlags(args, ["lab"]);
      await healLab(readState(index));
      console.log("all faults healed");
      return 0;
    case "status":
      allowFlags(args, ["lab"]);
      console.log(JSON.stringify(readState(index), null, 2));
      return 0;
    case "down":
      allowFlags(args, ["all"]);
      return down(args);
    default:
      throw new UsageError(`unknown lab command "${sub}"`);
  }
}

/** What `svc lab` is asked for: its flags, read. */
export interface SvcLabChoices {
  agents: number;
  netns: boolean;
  /** false: --no-prometheus */
  prometheus: boolean;
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
    netns: choices.netns,
    prometheus: choices.prometheus ? undefined : false,
    // the console's recording rules: matrix refreshes read their series (scrape 5 s: the "now" group every 5 s)
    prometheusRules: [{ name: "svc-recording-rules.yml", yaml: recordingRulesYaml("svc", 5, 15) }],
    console: choices.console,
    dir: choices.dir,
    config: { checkers },
    log: choices.log,
  };
}

async function runLab(args: Args): Promise<number> {
  allowFlags(args, ["agents", "no-netns", "no-prometheus", "no-console", "dir", "interval"]);
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
      netns,
      prometheus: !args.flags.has("no-prometheus"),
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
  const dispose = onStopRequest(stop);
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
  if (lab.prometheusUrl) console.log(`  prometheus       ${lab.prometheusUrl}`);
  console.log(`  logs and configs ${lab.dir}`);
  console.log("Press Ctrl-C to stop everything.");
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
