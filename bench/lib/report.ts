import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";

/** One line describing the machine a benchmark ran on. */
export function machine(): string {
  const cpu = cpus()[0]?.model.trim() ?? "unknown cpu";
  return `${cpus().length} x ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB, ${process.platform} ${process.arch}, node ${process.version}`;
}

/** A markdown table. */
export function table(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const line = (cells: readonly (string | number)[]) => `| ${cells.map(String).join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/**
 * Prints a result section and appends it to docs/benchmarks.md with the date and machine (not with
 * SVC_BENCH_NO_RECORD=1: a trial run).
 */
export function record(title: string, body: string): void {
  const section = `\n## ${title} — ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC\n\nMachine: ${machine()}\n\n${body}\n`;
  console.log(section);
  if (process.env.SVC_BENCH_NO_RECORD === "1") return;
  const file = new URL("../../docs/benchmarks.md", import.meta.url);
  if (!existsSync(file) || readFileSync(file, "utf8").length === 0) {
    appendFileSync(file, "# Benchmark results\n\nAppended by `npm run bench -- <name>`; newest last.\n");
  }
  appendFileSync(file, section);
}

/** The p-quantile (0-1) of a list of numbers (nearest rank). */
export function quantile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]!;
}

/** The median of a list of numbers. */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}
