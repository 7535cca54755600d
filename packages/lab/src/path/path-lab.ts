import { execFile } from "node:child_process";
import { type ExecResult, run, tryRun } from "../exec.ts";
import { checkMtu, linkDevice, PATH_LAB_MAX_INDEX, pathNamespace, validatePlan } from "./addressing.ts";
import { buildPath, readPathLab } from "./build-path.ts";
import {
  chainScript,
  fragNeededRules,
  hopLossRules,
  lossRules,
  PATH_TABLE,
  type PathChain,
  type PathLossProtocol,
  silenceRules,
  tableScript,
} from "./path-faults.ts";
import {
  type ExecStatus,
  type IpFamily,
  type PathHop,
  type PathLabOptions,
  type PathLink,
  planTopology,
} from "./path-topology.ts";
import {
  type NamespaceProcess,
  type RunInNamespaceOptions,
  runInNamespace,
  spawnInNamespace,
} from "./run-in-namespace.ts";

/**
 * A linear multi-hop lab: namespaces A, R1..Rn, B joined by veth links, static routes both ways through every
 * router, routers forwarding IPv4 and IPv6 and answering ICMP (time-exceeded, frag-needed, packet-too-big).
 * Addresses per addressing.ts; nothing routes off the machine. Always `destroy()` it (create() cleans up itself
 * when it fails part-way).
 */
export class PathLab {
  readonly hops: PathHop[];
  readonly links: PathLink[];
  private destroyed = false;

  private constructor(
    readonly index: number,
    readonly routers: number,
    readonly ipv6: boolean,
    private readonly initialMtu: readonly number[],
  ) {
    const plan = planTopology(index, routers, ipv6, initialMtu);
    this.hops = plan.hops;
    this.links = plan.links;
  }

  /** A handle on path lab `index` built earlier (maybe by another process); destroy() deletes it. */
  static async attach(index: number): Promise<PathLab> {
    const found = await readPathLab(index);
    const lab = new PathLab(index, found.routers, found.ipv6, found.createdMtu);
    for (const [i, mtu] of found.currentMtu.entries()) {
      const link = lab.links[i];
      if (link) link.mtu = mtu;
    }
    return lab;
  }

  /** Builds the path. Claims a free lab index atomically (by creating A's namespace) so concurrent labs never collide. */
  static async create(opts: PathLabOptions): Promise<PathLab> {
    const ipv6 = opts.ipv6 ?? false;
    const mtus = validatePlan(opts.routers, opts.linkMtu, ipv6).map((m) => m ?? 1500);
    let index = -1;
    for (let i = 0; i <= PATH_LAB_MAX_INDEX && index < 0; i++) {
      if (await tryRun("ip", ["netns", "add", pathNamespace(i, "A")])) index = i;
    }
    if (index < 0) throw new Error(`no free path-lab index: ${PATH_LAB_MAX_INDEX + 1} path labs exist`);
    const lab = new PathLab(index, opts.routers, ipv6, mtus);
    try {
      await buildPath(lab.hops, lab.links, opts.icmpRateLimit ?? false);
      // Resolve every neighbour once (IPv6 ND can take a retransmit) so the first probe of a test is not slow.
      for (const family of ipv6 ? ([4, 6] as const) : ([4] as const)) {
        await lab.exec("A", "ping", ["-c", "1", "-W", "5", lab.address("B", family)]);
      }
    } catch (err) {
      await lab.destroy();
      throw err;
    }
    return lab;
  }

  /** A hop by name ("A", "R1", "B"; case-insensitive) or namespace; throws for an unknown one. */
  hop(ref: string): PathHop {
    const found = this.hops.find((h) => h.name === ref.toUpperCase() || h.namespace === ref);
    if (!found) throw new Error(`unknown hop "${ref}" (hops: ${this.hops.map((h) => h.name).join(", ")})`);
    return found;
  }

  /** The namespace of a hop. */
  namespace(ref: string): string {
    return this.hop(ref).namespace;
  }

  /** A hop's address: A's on link 0, every other hop's on the link towards A (where traces from A see it). */
  address(ref: string, family: IpFamily = 4): string {
    const hop = this.hop(ref);
    const end = hop.left ?? hop.right;
    const addr = family === 4 ? end?.v4 : end?.v6;
    if (!addr) throw new Error(`hop ${hop.name} has no IPv${family} address (create with ipv6: true)`);
    return addr;
  }

  /** The addresses a trace from A to B reports, in order: R1..Rn then B. */
  expectedTrace(family: IpFamily = 4): string[] {
    return this.hops.slice(1).map((h) => this.address(h.name, family));
  }

  /** The smallest link MTU on the path (what PMTU discovery from A to B should find). */
  pathMtu(): number {
    return Math.min(...this.links.map((l) => l.mtu));
  }

  /** Runs a command inside a hop's namespace; rejects when it exits non-zero. */
  exec(
    ref: string,
    cmd: string,
    args: readonly string[],
    opts: { input?: string } = {},
  ): Promise<ExecResult> {
    return run("ip", ["netns", "exec", this.namespace(ref), cmd, ...args], opts);
  }

  /** Runs a command inside a hop's namespace and resolves its exit code and output, also when it fails. */
  execStatus(ref: string, cmd: string, args: readonly string[]): Promise<ExecStatus> {
    return new Promise((resolve) => {
      execFile(
        "ip",
        ["netns", "exec", this.namespace(ref), cmd, ...args],
        { maxBuffer: 16 << 20 },
        (err, stdout, stderr) => {
          const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
    });
  }

  /** Runs a TypeScript script inside a hop's namespace and resolves its last stdout line parsed as JSON. */
  runNode<T = unknown>(
    ref: string,
    script: string,
    args: readonly string[] = [],
    opts?: RunInNamespaceOptions,
  ) {
    return runInNamespace<T>(this.namespace(ref), script, args, opts);
  }

  /** Starts a long-running TypeScript script in a hop's namespace (see spawnInNamespace); stop() it yourself. */
  spawnNode<T = unknown>(
    ref: string,
    script: string,
    args: readonly string[] = [],
    opts?: RunInNamespaceOptions,
  ): NamespaceProcess<T> {
    return spawnInNamespace<T>(this.namespace(ref), script, args, opts);
  }

  /** Sets the MTU of both ends of link `link`. */
  async setLinkMtu(link: number, mtu: number): Promise<void> {
    const l = this.links[link];
    if (!l) throw new Error(`no link ${link}: the path has links 0-${this.links.length - 1}`);
    checkMtu(mtu, this.ipv6, `link ${link}`);
    for (const ref of [l.left, l.right]) {
      await run("ip", ["-n", this.namespace(ref), "link", "set", linkDevice(link), "mtu", String(mtu)]);
    }
    l.mtu = mtu;
  }

  /** Forgets learned path MTUs (route exceptions) in a hop, or in every hop. */
  async flushPmtu(ref?: string): Promise<void> {
    for (const hop of ref === undefined ? this.hops : [this.hop(ref)]) {
      await run("ip", ["-n", hop.namespace, "route", "flush", "cache"]);
      await run("ip", ["-n", hop.namespace, "-6", "route", "flush", "cache"]);
    }
  }

  /** Router drops its outbound frag-needed / packet-too-big (on) or stops dropping them (off). */
  dropFragNeeded(router: string, on = true): Promise<void> {
    return this.setChain(router, "fragneeded", on ? fragNeededRules() : []);
  }

  /** Loss on a router's outbound ICMP time-exceeded and echo-reply; 0 removes it. */
  hopIcmpLoss(router: string, percent: number): Promise<void> {
    return this.setChain(router, "hoploss", hopLossRules(percent));
  }

  /** The router never answers ICMP (on) or answers again (off). */
  silenceRouter(router: string, on = true): Promise<void> {
    return this.setChain(router, "silence", on ? silenceRules() : []);
  }

  /**
   * Loss on the traffic of `protocol` leaving a hop (icmp = echo requests), optionally only towards address `to`:
   * on A or B what they send (a local drop: the sender's send() fails with EPERM), on a router what it forwards
   * (like loss on the wire). Pass `to` on a router for udp/tcp, or replies are hit too.
   */
  loss(ref: string, percent: number, protocol: PathLossProtocol, to?: string): Promise<void> {
    return this.setChain(ref, `loss_${protocol}`, lossRules(protocol, percent, to));
  }

  /** Removes every fault and restores the link MTUs given to create(). */
  async heal(): Promise<void> {
    for (const hop of this.hops) {
      await tryRun("ip", ["netns", "exec", hop.namespace, "nft", "delete", "table", "inet", PATH_TABLE]);
    }
    for (const [i, mtu] of this.initialMtu.entries()) {
      if (this.links[i]?.mtu !== mtu) await this.setLinkMtu(i, mtu);
    }
  }

  /** Deletes every namespace of the lab (and with them the links); never throws; safe to call twice. */
  async destroy(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    for (const hop of this.hops) await tryRun("ip", ["netns", "del", hop.namespace]);
  }

  private async setChain(ref: string, chain: PathChain, rules: readonly string[]): Promise<void> {
    const input = tableScript() + chainScript(chain, rules);
    await run("ip", ["netns", "exec", this.namespace(ref), "nft", "-f", "-"], { input });
  }
}
