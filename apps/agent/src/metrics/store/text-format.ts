/**
 * The Prometheus text exposition format (version 0.0.4) pieces the agent's metric store writes: escaping and
 * number formatting, as prom-client writes them (so the bytes are those the agent has always served).
 */

/** Content type of the exposition. */
export const TEXT_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Throws for a metric name the format does not allow. */
export function checkMetricName(name: string): void {
  if (!METRIC_NAME.test(name)) throw new TypeError(`invalid metric name ${JSON.stringify(name)}`);
}

/** Throws for a label name the format does not allow (`le` is the histograms' own). */
export function checkLabelName(name: string): void {
  if (!LABEL_NAME.test(name) || name.startsWith("__") || name === "le") {
    throw new TypeError(`invalid label name ${JSON.stringify(name)}`);
  }
}

const NEEDS_ESCAPE = /[\\\n"]/;

/** A label value inside double quotes: backslash, newline and double quote escaped. */
export function escapeLabelValue(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return value;
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

/** HELP text: backslash and newline escaped. */
export function escapeHelp(help: string): string {
  return help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

/** A sample value: shortest round-trip decimal, `+Inf`, `-Inf` or `NaN`. */
export function formatValue(v: number): string {
  if (Number.isFinite(v)) return `${v}`;
  if (Number.isNaN(v)) return "NaN";
  return v > 0 ? "+Inf" : "-Inf";
}
