import type { Family } from "./families.ts";

type Labels = Record<string, string>;
type Series = Map<Family, Map<string, Labels>>;

/** Which owners to remove: both given = one (plane, dest); one given = all matching it; none = everything. */
export interface OwnerFilter {
  plane?: string | ((plane: string) => boolean);
  /** destination node; "" for series that belong to no peer (dns, http) */
  dest?: string;
}

/**
 * Remembers every label set written per (destination, plane) so all series of a departed peer or a disabled
 * plane can be removed exactly (prom-client removes by full label set only). Indexed by destination so that
 * per-peer removal costs the size of that peer's series, not of the whole registry.
 */
export class SeriesTracker {
  readonly #byDest = new Map<string, Map<string, Series>>();

  /** Records that `family` has a series with `labels`, owned by (plane, dest). */
  track(plane: string, dest: string, family: Family, labels: Labels): void {
    let planes = this.#byDest.get(dest);
    if (!planes) {
      planes = new Map();
      this.#byDest.set(dest, planes);
    }
    let series = planes.get(plane);
    if (!series) {
      series = new Map();
      planes.set(plane, series);
    }
    let sets = series.get(family);
    if (!sets) {
      sets = new Map();
      series.set(family, sets);
    }
    sets.set(JSON.stringify(labels), labels);
  }

  /** Removes the series of every owner matching the filter; returns how many series went. */
  remove(filter: OwnerFilter): number {
    let removed = 0;
    const planeMatches =
      filter.plane === undefined
        ? () => true
        : typeof filter.plane === "function"
          ? filter.plane
          : (p: string) => p === filter.plane;
    const dests = filter.dest === undefined ? [...this.#byDest.keys()] : [filter.dest];
    for (const dest of dests) {
      const planes = this.#byDest.get(dest);
      if (!planes) continue;
      for (const [plane, series] of planes) {
        if (!planeMatches(plane)) continue;
        for (const [family, sets] of series) {
          for (const labels of sets.values()) family.remove(labels);
          removed += sets.size;
        }
        planes.delete(plane);
      }
      if (planes.size === 0) this.#byDest.delete(dest);
    }
    return removed;
  }
}
