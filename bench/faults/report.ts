/** The tables of bench/faults: per type, the goals, the healthy gaps, and every fault. */
import { median, table } from "../lib/report.ts";
import { type FaultRecord, fmt, type GapRecord } from "./run.ts";

const s1 = (ms: number | undefined) => (ms === undefined || Number.isNaN(ms) ? "-" : (ms / 1000).toFixed(1));
const medMax = (xs: number[]) => (xs.length === 0 ? "-" : `${s1(median(xs))} (${s1(Math.max(...xs))})`);
const pct = (n: number, d: number) => (d === 0 ? "-" : `${Math.round((100 * n) / d)} %`);
const defined = (xs: (number | undefined)[]) => xs.filter((x): x is number => x !== undefined);

/** Markdown: per-type table, goals, gaps, per-fault table. */
export function faultTables(
  recs: readonly FaultRecord[],
  gaps: readonly GapRecord[],
  t: { P: number; S: number; PMTU_P: number },
): string {
  const types = [...new Set(recs.map((r) => r.type))];
  const row = (label: string, rs: readonly FaultRecord[]) => [
    label,
    rs.length,
    `${rs.filter((r) => r.detected).length}/${rs.length}`,
    medMax(defined(rs.map((r) => r.toRedMs))),
    rs.reduce((a, r) => a + r.falseReds, 0),
    pct(rs.filter((r) => r.top1).length, rs.length),
    pct(rs.filter((r) => r.top3).length, rs.length),
    medMax(defined(rs.map((r) => r.toRightTop1Ms))),
    rs.reduce((a, r) => a + r.confusions, 0),
    medMax(defined(rs.map((r) => r.healToGreenMs))),
    `${rs.filter((r) => r.alertFired).length}/${rs.length}`,
    medMax(defined(rs.map((r) => r.toWebhookMs))),
  ];
  const byType = table(
    [
      "type",
      "faults",
      "detected",
      "fault -> red, s: median (max)",
      "false reds",
      "top-1",
      "top-3",
      "red -> right top-1, s",
      "confusions",
      "heal -> green, s",
      "alert fired",
      "fault -> webhook, s",
    ],
    [
      ...types.map((ty) =>
        row(
          ty,
          recs.filter((r) => r.type === ty),
        ),
      ),
      row("**all**", recs),
    ],
  );
  const pmtuTypes = new Set(["mtu", "blackhole"]);
  const reds = defined(recs.filter((r) => !pmtuTypes.has(r.type)).map((r) => r.toRedMs));
  const pmtuReds = defined(recs.filter((r) => pmtuTypes.has(r.type)).map((r) => r.toRedMs));
  const right = defined(recs.map((r) => r.toRightTop1Ms));
  const gapReds = gaps.filter((g) => g.falseReds > 0).length;
  const gapSuspects = gaps.filter((g) => g.suspectPolls > 0);
  const confused = recs.flatMap((r) => (r.confusedWith ? [`${r.words}: ${r.confusedWith.join(", ")}`] : []));
  const goals = [
    `- Detection: ${recs.filter((r) => r.detected).length} of ${recs.length} faults detected.`,
    `- Fault -> red, median: ${s1(median(reds))} s against P + S + 2 = ${t.P + t.S + 2} s (tcp/udp/icmp faults); ` +
      `${s1(median(pmtuReds))} s against ${t.PMTU_P + t.S + 2} s for the path-MTU faults (pmtu probed every ${t.PMTU_P} s).`,
    `- Localization: top-1 ${pct(recs.filter((r) => r.top1).length, recs.length)} (goal 90 %), top-3 ` +
      `${pct(recs.filter((r) => r.top3).length, recs.length)} (goal 98 %); right top-1 ${s1(median(right))} s after ` +
      `the first red cell, median (goal 5 s); max ${s1(right.length ? Math.max(...right) : undefined)} s.`,
    `- Precision: ${recs.reduce((a, r) => a + r.falseReds, 0)} red cells outside a fault's scope; ${gapReds} of ` +
      `${gaps.length} healthy gaps with a red cell, ${gapSuspects.length} with a suspect` +
      `${gapSuspects.length ? ` (${[...new Set(gapSuspects.flatMap((g) => g.suspects))].join(", ")})` : ""}.`,
    `- Node down vs network fault: ${recs.reduce((a, r) => a + r.confusions, 0)} polls where the top suspect had the wrong class` +
      `${confused.length ? ` (${confused.join("; ")})` : ""}.`,
  ];
  const perFault = table(
    ["#", "fault", "red", "right top-1 after red", "top-1 said", "false reds", "heal -> green", "webhook"],
    recs.map((r) => [
      r.index,
      `\`${r.words}\``,
      fmt(r.toRedMs),
      fmt(r.toRightTop1Ms),
      r.top1 ? "right" : `**${r.saidTop1}**`,
      r.falseReds,
      fmt(r.healToGreenMs),
      fmt(r.toWebhookMs),
    ]),
  );
  return `${byType}\n\n${goals.join("\n")}\n\nEvery fault:\n\n${perFault}\n`;
}
