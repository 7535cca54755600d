import { type Args, allowFlags, stringFlag, UsageError } from "./args.ts";
import {
  type CheckResultBody,
  ControllerApiError,
  ControllerClient,
  type DiagnosticBody,
  resolveControllerUrl,
} from "./controller-client.ts";
import { type CommandIo, consoleIo, outputFormat } from "./output-flag.ts";
import { formatTable } from "./topology-command.ts";

export const CHECK_USAGE = `usage: svc check SRC DST --type TYPE [--external ADDR] [--timeout SECONDS] [--controller URL] [-o json]
  runs a one-shot check from node SRC to node DST (POST /api/v1/diagnostics); with --external, DST is the
  name of an external target at ADDR (tcp, icmp, mtr only). TYPE: tcp udp icmp pmtu dns http mtr.
  exit status: 0 the check succeeded, 2 it ran and failed, 1 usage or API error`;

/** Upper bound of the diagnostics `timeout` query (spec §4.2). */
const MAX_TIMEOUT_S = 120;

/** Nanoseconds as a short human duration (`850 µs`, `1.25 ms`, `2.5 s`). */
export function formatNs(ns: number): string {
  if (!Number.isFinite(ns)) return String(ns);
  if (ns < 1_000_000) return `${(ns / 1000).toFixed(0)} µs`;
  if (ns < 1_000_000_000) return `${(ns / 1_000_000).toFixed(2)} ms`;
  return `${(ns / 1_000_000_000).toFixed(2)} s`;
}

function percent(ratio: unknown): string {
  return typeof ratio === "number" ? `${(ratio * 100).toFixed(ratio === 0 || ratio === 1 ? 0 : 1)}%` : "?";
}

function num(v: unknown): number | undefined {
  return typeof v === "number" ? v : undefined;
}

function detailLines(r: CheckResultBody): string[] {
  const d = r.details ?? {};
  const lines: string[] = [];
  const rest = { ...d };
  if (r.type === "mtr" && Array.isArray(d.hops)) {
    delete rest.hops;
    delete rest.target;
    if (typeof d.target === "string") lines.push(`  target: ${d.target}`);
    const rows = (d.hops as unknown[]).map((h) => {
      const hop = (typeof h === "object" && h !== null ? h : {}) as Record<string, unknown>;
      const rtt = num(hop.rtt);
      const ip = typeof hop.ip === "string" && hop.ip !== "" ? hop.ip : "*";
      return [String(hop.number ?? "?"), ip, rtt === undefined ? "-" : formatNs(rtt), percent(hop.lossRatio)];
    });
    lines.push(...formatTable([["HOP", "ADDRESS", "RTT", "LOSS"], ...rows]).map((l) => `  ${l}`));
  }
  const rtt = num(d.rtt);
  if (rtt !== undefined) {
    lines.push(`  rtt: ${formatNs(rtt)}`);
    delete rest.rtt;
  }
  if (d.lossRatio !== undefined && r.type !== "mtr") {
    lines.push(`  loss: ${percent(d.lossRatio)}`);
    delete rest.lossRatio;
  }
  for (const [k, v] of Object.entries(rest))
    lines.push(`  ${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`);
  return lines;
}

/** The CheckResult as a few readable lines: verdict, parties with zones, duration, error, details, time. */
export function formatCheckResult(r: CheckResultBody): string[] {
  const zone = (z: string): string => (z ? ` (${z})` : "");
  const lines = [
    `${r.success ? "OK" : "FAILED"}  ${r.type} ${r.source}${zone(r.sourceZone)} -> ${r.destination}${zone(r.destZone)} in ${formatNs(r.duration)}`,
  ];
  if (r.error) lines.push(`  error: ${r.error}`);
  lines.push(...detailLines(r));
  if (r.timestamp) lines.push(`  at ${r.timestamp}`);
  return lines;
}

function parseTimeout(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const s = Number(raw.endsWith("s") ? raw.slice(0, -1) : raw);
  if (!Number.isFinite(s) || s <= 0 || s > MAX_TIMEOUT_S)
    throw new UsageError(
      `--timeout must be a number of seconds, above 0 and at most ${MAX_TIMEOUT_S}, got "${raw}"`,
    );
  return s;
}

/** Builds the diagnostics request from the command line; throws UsageError. */
export function checkRequest(args: Args): {
  body: DiagnosticBody;
  timeout: number | undefined;
  json: boolean;
} {
  allowFlags(args, ["type", "external", "timeout", "controller", "output", "json"]);
  const { format, words } = outputFormat(args);
  const [, source, destination, extra] = words;
  if (source === undefined || destination === undefined) throw new UsageError("svc check needs SRC and DST");
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
  const type = stringFlag(args, "type");
  if (type === undefined || type === "") throw new UsageError("--type is required");
  const body: DiagnosticBody = { source, destination, type };
  const external = stringFlag(args, "external");
  if (external !== undefined) {
    if (external === "") throw new UsageError("--external needs an address");
    body.destinationKind = "external";
    body.destinationAddress = external;
  }
  return { body, timeout: parseTimeout(stringFlag(args, "timeout")), json: format === "json" };
}

/**
 * `svc check SRC DST --type T [--external ADDR] [--timeout S] [--controller URL] [-o json]`: asks the
 * controller to run the check and prints the CheckResult. Resolves 0 when the check succeeded, 2 when it ran
 * and failed, 1 when the controller refused or could not be reached (its error text is printed). The type is
 * validated by the controller, so its reason is what the user sees. Throws UsageError on a bad command line.
 */
export async function checkCommand(args: Args, io: CommandIo = consoleIo): Promise<number> {
  const { body, timeout, json } = checkRequest(args);
  const url = resolveControllerUrl(stringFlag(args, "controller"));
  if (url === undefined) throw new UsageError("--controller (or SVC_CONTROLLER_URL) must be an http(s) URL");
  let result: CheckResultBody;
  try {
    result = await new ControllerClient(url).diagnose(body, timeout);
  } catch (err) {
    if (!(err instanceof ControllerApiError)) throw err;
    io.err(`svc check: ${err.message}`);
    return 1;
  }
  if (json) io.out(JSON.stringify(result, null, 2));
  else for (const line of formatCheckResult(result)) io.out(line);
  return result.success === true ? 0 : 2;
}
