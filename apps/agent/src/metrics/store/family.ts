import { checkLabelName, checkMetricName, escapeHelp, escapeLabelValue } from "./text-format.ts";

/** Label values by label name; a family's label names, each exactly once. */
export type Labels = Readonly<Record<string, string>>;

/** Exposition text per chunk a family yields while it is written out (characters, roughly). */
const CHUNK_CHARS = 64 * 1024;

export interface FamilyOptions {
  /** full metric name, prefix included */
  name: string;
  help: string;
  /** the order labels appear in on every line */
  labelNames?: readonly string[];
}

/** What every series has: its label set as it appears in the exposition, which is also its identity. */
export interface Series {
  /** `a="x",b="y"` (escaped, in the family's label order); "" for a family without labels */
  readonly key: string;
}

/**
 * One metric family: its series by label set, and its part of the exposition. A series handle returned by
 * `series()` stays in the family until removed; callers on a hot path keep the handle and skip the lookup.
 * After a removal, get a new handle: writes to a removed one no longer reach the exposition.
 */
export abstract class Family<S extends Series> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  abstract readonly type: "counter" | "gauge" | "histogram";
  readonly #series = new Map<string, S>();
  readonly #make: (key: string) => S;

  /** `make` builds a series with zero values for a label key. */
  protected constructor(o: FamilyOptions, make: (key: string) => S) {
    checkMetricName(o.name);
    const labelNames = [...(o.labelNames ?? [])];
    for (const l of labelNames) checkLabelName(l);
    if (new Set(labelNames).size !== labelNames.length) {
      throw new TypeError(`${o.name}: duplicate label name in ${labelNames.join(",")}`);
    }
    this.name = o.name;
    this.help = o.help;
    this.labelNames = labelNames;
    this.#make = make;
    // a family without labels has its one series from the start (at zero), as Prometheus clients do
    if (labelNames.length === 0) this.#series.set("", make(""));
  }

  /** The series with these labels, created (at zero) on first use. Throws when a label is missing or extra. */
  series(labels: Labels = {}): S {
    const key = this.keyOf(labels);
    let s = this.#series.get(key);
    if (s === undefined) {
      const flat = flatString(key);
      s = this.#make(flat);
      this.#series.set(flat, s);
    }
    return s;
  }

  /** The exposition key of a label set (see Series.key). Throws when a label is missing or extra. */
  keyOf(labels: Labels): string {
    const names = this.labelNames;
    let key = "";
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string;
      const value = labels[name];
      if (typeof value !== "string") throw new TypeError(`${this.name}: label ${name} is missing`);
      key += `${i === 0 ? "" : ","}${name}="${escapeLabelValue(value)}"`;
    }
    let given = 0;
    for (const _ in labels) given++;
    if (given !== names.length) {
      const extra = Object.keys(labels).filter((k) => !names.includes(k));
      throw new TypeError(`${this.name}: unknown label ${extra.join(", ")}`);
    }
    return key;
  }

  /** Removes the series with these labels; false when there was none. */
  remove(labels: Labels): boolean {
    return this.removeKey(this.keyOf(labels));
  }

  /** Removes the series with this key (Series.key); false when there was none. */
  removeKey(key: string): boolean {
    return this.#series.delete(key);
  }

  /** How many series the family has. */
  get size(): number {
    return this.#series.size;
  }

  /**
   * The family's exposition: HELP and TYPE lines, then every series' lines, each line after a newline, no
   * newline at the end; in chunks of about 64 KiB, made as they are read.
   */
  *chunks(): Generator<string> {
    this.beforeWrite();
    let buf = `# HELP ${this.name} ${escapeHelp(this.help)}\n# TYPE ${this.name} ${this.type}`;
    for (const s of this.#series.values()) {
      buf += this.lines(s);
      if (buf.length >= CHUNK_CHARS) {
        yield buf;
        buf = "";
      }
    }
    if (buf !== "") yield buf;
  }

  /** Runs before the family is written (a gauge's collect callback). */
  protected beforeWrite(): void {}

  /** One series' lines, each preceded by "\n". */
  protected abstract lines(s: S): string;

  /** `name{key}`, or `name` alone for a series without labels. */
  protected static sampleName(name: string, key: string): string {
    return key === "" ? name : `${name}{${key}}`;
  }
}

/**
 * A flat copy of a string built by concatenation. `keyOf` builds a key from a dozen pieces, and V8 keeps such a
 * string as a tree of concatenation nodes (32 bytes each) for as long as it lives: a series key lives as long as
 * its series, so at 1000 peers (~16,000 series) the trees held ~6 MiB of the agent's heap (bench/agent-footprint
 * --profile, heap snapshot: "concatenated string"). JSON's round trip is lossless (lone surrogates included) and
 * returns a sequential string; it runs once per new series, never on the probe path.
 */
export function flatString(s: string): string {
  return JSON.parse(JSON.stringify(s)) as string;
}
