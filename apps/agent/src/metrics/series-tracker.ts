import type { AnyFamily } from "./store/registry.ts";

/** Series keys (Series.key) per family. */
type Series = Map<AnyFamily, Set<string>>;

/** Which owners to remove: both given = one (plane, dest); one given = all matching it; none = everything. */
export interface OwnerFilter {
  plane?: string | ((plane: string) => boolean);
  /** destination node; "" for series that belong to no peer (dns, http) */
  dest?: string;
}

/**
 * Remembers every series written per (destination, plane) so all series of a departed peer or a disabled
 * plane can be removed exactly. Indexed by destination so that per-peer removal costs the size of that peer's
 * series, not of the whole registry. Keys are the series' own label keys (no copies).
 */
export class SeriesTracker {
  readonly #byDest = new Map<string, Map<string, Series>>();

  /** Records that `family` has the series `key`, owned by (plane, dest). */
  track(plane: string, dest: string, family: AnyFamily, key: string): void {
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
    let keys = series.get(family);
    if (!keys) {
      keys = new Set();
      series.set(family, keys);
    }
    keys.add(key);
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
        for (const [family, keys] of series) {
          for (const key of keys) family.removeKey(key);
          removed += keys.size;
        }
        planes.delete(plane);
      }
      if (planes.size === 0) this.#byDest.delete(dest);
    }
    return removed;
  }
}
