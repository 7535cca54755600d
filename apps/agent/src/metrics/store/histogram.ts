import { Family, type FamilyOptions, type Labels } from "./family.ts";
import { formatValue } from "./text-format.ts";

function checkObservation(v: number): void {
  if (!Number.isFinite(v)) throw new TypeError(`histogram observation must be finite, got ${v}`);
}

/** A histogram series: a count per bucket (not cumulative; the exposition sums them), sum and count. */
export class HistogramSeries {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly key: string,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length);
  }

  /** Counts one observation in the first bucket whose upper bound is >= v (+Inf when none). */
  observe(v: number): void {
    checkObservation(v);
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (v <= (bounds[i] as number)) {
        (this.counts[i] as number)++;
        break;
      }
    }
    this.sum += v;
    this.count++;
  }
}

export interface HistogramOptions extends FamilyOptions {
  /** upper bounds, increasing, finite; `+Inf` is implied */
  buckets: readonly number[];
}

/** A histogram family: `_bucket` lines (cumulative, `le` first), `_sum`, `_count` per series. */
export class HistogramFamily extends Family<HistogramSeries> {
  readonly type = "histogram";
  /** `name_bucket{le="<bound>"` per bucket, then the +Inf one */
  readonly #bucketHeads: string[];

  constructor(o: HistogramOptions) {
    const bounds = [...o.buckets];
    if (bounds.some((b, i) => !Number.isFinite(b) || (i > 0 && b <= (bounds[i - 1] as number)))) {
      throw new TypeError(`${o.name}: buckets must be finite and increasing`);
    }
    super(o, (key) => new HistogramSeries(key, bounds));
    this.#bucketHeads = [...bounds.map(formatValue), "+Inf"].map((le) => `${o.name}_bucket{le="${le}"`);
  }

  /** Observes v in the series with these labels. */
  observe(labels: Labels, v: number): void {
    checkObservation(v); // before the series is made: a refused observation adds nothing
    this.series(labels).observe(v);
  }

  protected lines(s: HistogramSeries): string {
    const tail = s.key === "" ? "} " : `,${s.key}} `;
    const heads = this.#bucketHeads;
    let out = "";
    let acc = 0;
    for (let i = 0; i < s.counts.length; i++) {
      acc += s.counts[i] as number;
      out += `\n${heads[i]}${tail}${acc}`;
    }
    out += `\n${heads[s.counts.length]}${tail}${s.count}`;
    out += `\n${Family.sampleName(`${this.name}_sum`, s.key)} ${formatValue(s.sum)}`;
    out += `\n${Family.sampleName(`${this.name}_count`, s.key)} ${s.count}`;
    return out;
  }
}
