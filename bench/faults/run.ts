/**
 * Runs a sequence of faults on a lab and records, per fault, what an operator's console showed: detection and the
 * time to the first red cell in the fault's scope (first lossy cell for partial loss), red cells outside the
 * scope, the localization's top-1 and top-3 against the truth and the time to the right top-1, node-down /
 * network confusions, heal -> green, and whether the alert rule fired on the scope and its webhook arrived. Then,
 * in the healthy gap after each, red cells and suspects anywhere. Shared by bench/faults and its e2e subset.
 *
 * Polling: every POLL_MS the four matrices and the suspects, as the console serves them (signed in as the lab's
 * administrator). Times are from the moment the fault's injection returned (heal: the heal's).
 */
import type { FleetMatrix, FleetSuspects, Suspect } from "@svc/contract";
import type { Lab } from "@svc/lab";
import { confuses, type DrawnFault, type Plane } from "./catalogue.ts";

export const POLL_MS = 1000;

/** Timing of one fault. */
export interface RunTiming {
  /** longest a fault is held waiting for detection and the right top-1 */
  holdMaxMs: number;
  /** held at least this long after the right top-1 first appeared (steady answer) */
  steadyMs: number;
  /** longest wait for green after the heal */
  greenMaxMs: number;
  /** healthy gap after green */
  gapMs: number;
}

/** What was recorded of one fault. */
export interface FaultRecord {
  index: number;
  type: string;
  words: string;
  detected: boolean;
  toRedMs?: number;
  /** most red cells outside the true scope at any poll while held, and a few of them */
  falseReds: number;
  falseRedCells?: string[];
  /** at the end of the hold */
  top1: boolean;
  top3: boolean;
  /** the first suspect's id at the end of the hold */
  saidTop1: string;
  /** first red -> the right top-1 (absent: never right) */
  toRightTop1Ms?: number;
  /** polls whose top suspect named the wrong class (a node down as a network fault, or the reverse) */
  confusions: number;
  /** the wrong-class suspects named, with the time after the injection (the first few) */
  confusedWith?: string[];
  healToGreenMs?: number;
  alertFired: boolean;
  toWebhookMs?: number;
}

/** What was recorded of one healthy gap. */
export interface GapRecord {
  after: number;
  polls: number;
  /** most red cells at any poll, and a few of them */
  falseReds: number;
  redCells?: string[];
  /** polls with a suspect (role suspect) */
  suspectPolls: number;
  suspects: string[];
}

/** Where the fault's webhooks arrive (alert.fired bodies with their arrival time). */
export interface WebhookLog {
  fired: { at: number; labels: Record<string, string> }[];
}

type Cells = { protocol: Plane; source: string; destination: string; tier: string; lossRatio?: number }[];

/** Reads the console as the lab's administrator. */
export class ConsoleReader {
  constructor(
    private readonly lab: Lab,
    private readonly cookie: string,
  ) {}

  private async get<T>(path: string): Promise<T> {
    const res = await fetch(`${this.lab.consoleUrl}${path}`, {
      headers: { cookie: this.cookie },
      signal: AbortSignal.timeout(20_000),
    });
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  }

  async cells(): Promise<Cells> {
    const out: Cells = [];
    for (const protocol of ["tcp", "udp", "icmp", "pmtu"] as const) {
      const m = await this.get<FleetMatrix>(`/api/v1/fleet/matrix?protocol=${protocol}`);
      for (const c of m.cells)
        out.push({ protocol, source: c.source, destination: c.destination, tier: c.tier });
    }
    return out;
  }

  suspects(): Promise<FleetSuspects> {
    return this.get<FleetSuspects>("/api/v1/fleet/suspects");
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const explanation = (s: FleetSuspects): Suspect[] => s.suspects.filter((x) => x.role === "suspect");

/** Runs one fault: inject, watch, heal, wait for green, then the healthy gap. */
export async function runFault(
  lab: Lab,
  reader: ConsoleReader,
  f: DrawnFault,
  index: number,
  timing: RunTiming,
  hooks: WebhookLog,
  log: (line: string) => void = () => {},
  /** runs once while the fault holds, after the right top-1 first appeared (the e2e's browser checks) */
  whileHeld?: () => Promise<void>,
): Promise<{ fault: FaultRecord; gap: GapRecord }> {
  await lab.fault(f.fault);
  const t0 = Date.now();
  const rec: FaultRecord = {
    index,
    type: f.type,
    words: f.words,
    detected: false,
    falseReds: 0,
    top1: false,
    top3: false,
    saidTop1: "",
    confusions: 0,
    alertFired: false,
  };
  let rightAt: number | undefined;
  let last: FleetSuspects | undefined;
  while (Date.now() - t0 < timing.holdMaxMs) {
    const [cells, sus] = await Promise.all([reader.cells(), reader.suspects()]);
    const now = Date.now();
    last = sus;
    // a partial loss shows as lossy cells (loss in the latest run), not only red ones
    const bad = cells.filter((c) => c.tier === "failing" || (f.lossy && (c.lossRatio ?? 0) > 0));
    const mine = bad.filter((c) => f.inScope(c.protocol, c.source, c.destination));
    const outside = cells.filter(
      (c) => c.tier === "failing" && !f.inScope(c.protocol, c.source, c.destination),
    );
    if (outside.length > rec.falseReds) {
      rec.falseReds = outside.length;
      rec.falseRedCells = outside.slice(0, 6).map(cellName);
    }
    if (mine.length > 0 && rec.toRedMs === undefined) {
      rec.detected = true;
      rec.toRedMs = now - t0;
    }
    const top = sus.suspects[0];
    if (top && f.isTruth(top) && rightAt === undefined && rec.toRedMs !== undefined) {
      rightAt = now;
      rec.toRightTop1Ms = Math.max(0, now - t0 - rec.toRedMs);
    }
    if (top && rec.toRedMs !== undefined && confuses(f, top)) {
      rec.confusions++;
      const seen = rec.confusedWith ?? [];
      if (seen.length < 4) rec.confusedWith = [...seen, `${top.id} at ${fmt(now - t0)}`];
    }
    if (rightAt !== undefined && whileHeld) {
      await whileHeld();
      whileHeld = undefined;
    }
    if (rightAt !== undefined && Date.now() - rightAt >= timing.steadyMs) break;
    await sleep(Math.max(0, POLL_MS - (Date.now() - now)));
  }
  const list = last?.suspects ?? [];
  rec.saidTop1 = list[0]?.id ?? "none";
  rec.top1 = list[0] !== undefined && f.isTruth(list[0]);
  rec.top3 = list.slice(0, 3).some((s) => f.isTruth(s));
  const fired = hooks.fired.find(
    (h) =>
      h.at >= t0 &&
      (["tcp", "udp", "icmp", "pmtu"] as const).some((p) =>
        f.inScope(p, h.labels.source_node ?? "", h.labels.destination_node ?? ""),
      ),
  );
  rec.alertFired = fired !== undefined;
  if (fired) rec.toWebhookMs = fired.at - t0;
  log(
    `#${index} ${f.words}: red ${fmt(rec.toRedMs)}, right top-1 +${fmt(rec.toRightTop1Ms)}, top-1 ${rec.top1 ? "ok" : `MISS (${rec.saidTop1})`}, false reds ${rec.falseReds}${rec.falseRedCells ? ` (${rec.falseRedCells.join(", ")})` : ""}, webhook ${fmt(rec.toWebhookMs)}`,
  );

  await lab.heal();
  const h0 = Date.now();
  while (Date.now() - h0 < timing.greenMaxMs) {
    const [cells, sus] = await Promise.all([reader.cells(), reader.suspects()]);
    const red = cells.some((c) => c.tier === "failing" && f.inScope(c.protocol, c.source, c.destination));
    if (!red && explanation(sus).length === 0) {
      rec.healToGreenMs = Date.now() - h0;
      break;
    }
    await sleep(POLL_MS);
  }
  const gap: GapRecord = { after: index, polls: 0, falseReds: 0, suspectPolls: 0, suspects: [] };
  const g0 = Date.now();
  while (Date.now() - g0 < timing.gapMs) {
    const [cells, sus] = await Promise.all([reader.cells(), reader.suspects()]);
    gap.polls++;
    const red = cells.filter((c) => c.tier === "failing");
    if (red.length > gap.falseReds) {
      gap.falseReds = red.length;
      gap.redCells = red.slice(0, 6).map(cellName);
    }
    const ex = explanation(sus);
    if (ex.length > 0) {
      gap.suspectPolls++;
      for (const s of ex) if (!gap.suspects.includes(s.id)) gap.suspects.push(s.id);
    }
    await sleep(POLL_MS);
  }
  if (gap.falseReds > 0 || gap.suspectPolls > 0)
    log(
      `  gap after #${index}: ${gap.falseReds} red cells, suspects in ${gap.suspectPolls} polls: ${gap.suspects.join(", ")}`,
    );
  return { fault: rec, gap };
}

const cellName = (c: Cells[number]) => `${c.protocol} ${c.source}->${c.destination}`;

export const fmt = (ms: number | undefined) => (ms === undefined ? "-" : `${(ms / 1000).toFixed(1)} s`);
