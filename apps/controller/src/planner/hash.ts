/**
 * Stable 32-bit hash of a string: FNV-1a over its UTF-16 code units, then murmur3's fmix32 finaliser for
 * avalanche. Part of the plan's contract across controller versions and restarts: changing it reshuffles every
 * fleet's ring and chords on upgrade, so treat it as frozen.
 */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return mix32(h);
}

/** murmur3 fmix32: a bijective 32-bit mixer; result is an unsigned 32-bit integer. */
export function mix32(x: number): number {
  let h = x | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Code-unit order (what `Array.prototype.sort()` uses), locale-independent so plans match on every host. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
