import { Family, type FamilyOptions, type Labels } from "./family.ts";
import { formatValue } from "./text-format.ts";

function checkGaugeValue(v: number): void {
  if (typeof v !== "number") throw new TypeError(`gauge value must be a number, got ${typeof v}`);
}

/** A gauge series: the last value set. */
export class GaugeSeries {
  value = 0;
  constructor(readonly key: string) {}

  set(v: number): void {
    checkGaugeValue(v);
    this.value = v;
  }
}

export interface GaugeOptions extends FamilyOptions {
  /** called each time the family is written, before its series are (to set values read on demand) */
  collect?: (family: GaugeFamily) => void;
}

/** A gauge family. */
export class GaugeFamily extends Family<GaugeSeries> {
  readonly type = "gauge";
  readonly #collect: ((family: GaugeFamily) => void) | undefined;

  constructor(o: GaugeOptions) {
    super(o, (key) => new GaugeSeries(key));
    this.#collect = o.collect;
  }

  /** Sets the series with these labels. */
  set(labels: Labels, v: number): void {
    checkGaugeValue(v); // before the series is made: a refused value adds nothing
    this.series(labels).set(v);
  }

  protected override beforeWrite(): void {
    this.#collect?.(this);
  }

  protected lines(s: GaugeSeries): string {
    return `\n${Family.sampleName(this.name, s.key)} ${formatValue(s.value)}`;
  }
}
