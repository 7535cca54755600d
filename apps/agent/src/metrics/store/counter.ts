import { Family, type FamilyOptions, type Labels } from "./family.ts";
import { formatValue } from "./text-format.ts";

function checkIncrement(n: number): void {
  if (!(n >= 0) || n === Number.POSITIVE_INFINITY) {
    throw new TypeError(`counter increment must be a finite number >= 0, got ${n}`);
  }
}

/** A counter series: only goes up (until its series is removed). */
export class CounterSeries {
  value = 0;
  constructor(readonly key: string) {}

  /** Adds n (default 1); throws for a negative or non-finite n. */
  inc(n = 1): void {
    checkIncrement(n);
    this.value += n;
  }
}

/** A counter family. */
export class CounterFamily extends Family<CounterSeries> {
  readonly type = "counter";

  constructor(o: FamilyOptions) {
    super(o, (key) => new CounterSeries(key));
  }

  /** Adds n (default 1) to the series with these labels. */
  inc(labels: Labels = {}, n = 1): void {
    checkIncrement(n); // before the series is made: a refused increment adds nothing
    this.series(labels).inc(n);
  }

  protected lines(s: CounterSeries): string {
    return `\n${Family.sampleName(this.name, s.key)} ${formatValue(s.value)}`;
  }
}
