import { EXTERNAL_CHECKS_CAPABILITY, PLANES, type TopologyAgent, type TopologySnapshot } from "@svc/protocol";
import { type Args, allowFlags, stringFlag, UsageError } from "./args.ts";
import { ControllerApiError, ControllerClient, resolveControllerUrl } from "./controller-client.ts";
import { type CommandIo, consoleIo, outputFormat } from "./output-flag.ts";

export const TOPOLOGY_USAGE = `usage: svc topology [--controller URL] [-o json]
  nodes and agents the controller knows (GET /api/v1/topology); -o json prints the snapshot as is.
  URL defaults to $SVC_CONTROLLER_URL, else http://127.0.0.1:8080`;

/**
 * Short form of an agent's capabilities: its planes in spec order (`all` for an agent listing no plane, which
 * runs every plane; `none reported` for one sending no capabilities at all), then `+ext` for `external-checks`.
 */
export function shortCapabilities(caps: readonly string[]): string {
  if (caps.length === 0) return "none reported";
  const planes = PLANES.filter((p) => caps.includes(`plane:${p}`));
  const hasPlanes = caps.some((c) => c.startsWith("plane:"));
  const text = hasPlanes ? planes.join(",") : "all";
  return caps.includes(EXTERNAL_CHECKS_CAPABILITY) ? `${text} +ext` : text;
}

function ports(a: TopologyAgent): string {
  const parts: string[] = [];
  if (a.httpPort !== undefined) parts.push(`http=${a.httpPort}`);
  if (a.udpPort !== undefined) parts.push(`udp=${a.udpPort}`);
  if (a.metricsPort !== undefined) parts.push(`metrics=${a.metricsPort}`);
  return parts.length > 0 ? parts.join(" ") : "-";
}

/** Pads columns to their widest cell, two spaces apart. */
export function formatTable(rows: readonly string[][]): string[] {
  const widths: number[] = [];
  for (const r of rows) {
    r.forEach((c, i) => {
      widths[i] = Math.max(widths[i] ?? 0, c.length);
    });
  }
  return rows.map((r) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
}

/**
 * One row per agent (NAME is its node, AGENT its id when that differs) and one per node without an agent;
 * READY is the node's readiness (`-` for an agent whose node the inventory does not list). Sorted by zone,
 * then name.
 */
export function topologyTable(snap: TopologySnapshot): string[] {
  const nodes = new Map(snap.nodes.map((n) => [n.name, n]));
  type Row = { zone: string; name: string; cells: string[] };
  const rows: Row[] = [];
  const withAgent = new Set<string>();
  for (const a of snap.agents) {
    withAgent.add(a.nodeName);
    const node = nodes.get(a.nodeName);
    const ready = node === undefined ? "-" : node.ready ? "yes" : "no";
    const name = a.id === a.nodeName ? a.nodeName : `${a.nodeName} (${a.id})`;
    rows.push({
      zone: a.zone,
      name: a.nodeName,
      cells: [name, a.zone || "-", ready, a.podIP, shortCapabilities(a.capabilities), ports(a)],
    });
  }
  for (const n of snap.nodes) {
    if (withAgent.has(n.name)) continue;
    rows.push({
      zone: n.zone,
      name: n.name,
      cells: [n.name, n.zone || "-", n.ready ? "yes" : "no", "-", "(no agent)", "-"],
    });
  }
  rows.sort((x, y) => x.zone.localeCompare(y.zone) || x.name.localeCompare(y.name));
  const lines = formatTable([
    ["NAME", "ZONE", "READY", "ADDRESS", "CAPABILITIES", "PORTS"],
    ...rows.map((r) => r.cells),
  ]);
  const plan = snap.probePlan !== undefined ? ", sparse probe plan" : "";
  lines.push("", `${snap.nodes.length} nodes, ${snap.agents.length} agents${plan}`);
  return lines;
}

/**
 * `svc topology [--controller URL] [-o json]`: prints the table (or the raw snapshot JSON). Resolves 0, or 1
 * after printing the controller's error (unreachable, 503 `not the leader`, ...). Throws UsageError on a bad
 * command line.
 */
export async function topologyCommand(args: Args, io: CommandIo = consoleIo): Promise<number> {
  allowFlags(args, ["controller", "output", "json"]);
  const { format, words } = outputFormat(args);
  if (words.length > 1) throw new UsageError(`unexpected argument "${words[1]}"`);
  const url = resolveControllerUrl(stringFlag(args, "controller"));
  if (url === undefined) throw new UsageError("--controller (or SVC_CONTROLLER_URL) must be an http(s) URL");
  try {
    const snap = await new ControllerClient(url).topology();
    if (format === "json") io.out(JSON.stringify(snap, null, 2));
    else for (const line of topologyTable(snap)) io.out(line);
    return 0;
  } catch (err) {
    if (!(err instanceof ControllerApiError)) throw err;
    io.err(`svc topology: ${err.message}`);
    return 1;
  }
}
