/**
 * A binary min-heap ordered by a numeric key read from each item once, when it is pushed (an item's key must
 * not change while it is in the heap).
 * Items and keys share one array, item i at 2i and its key at 2i + 1: an array holding objects stores numbers
 * boxed, so moving and comparing keys allocates nothing. Keys read from the items at every comparison, as a
 * key function returning a fractional number (a time), allocated a fresh number per call in V8's baseline tiers,
 * where the agent's code runs (docs/decisions.md, "Memory (agent)"): a quarter of the agent's allocations at
 * 1000 peers.
 */
export class MinHeap<T> {
  readonly #slots: (T | number)[] = [];
  constructor(readonly key: (item: T) => number) {}

  get size(): number {
    return this.#slots.length >> 1;
  }

  peek(): T | undefined {
    return this.#slots[0] as T | undefined;
  }

  push(item: T): void {
    const a = this.#slots;
    const k = this.key(item);
    let i = a.length >> 1;
    a.push(item, k);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pk = a[2 * parent + 1] as number;
      if (pk <= k) break;
      a[2 * i] = a[2 * parent] as T;
      a[2 * i + 1] = pk;
      i = parent;
    }
    a[2 * i] = item;
    a[2 * i + 1] = k;
  }

  pop(): T | undefined {
    const a = this.#slots;
    if (a.length === 0) return undefined;
    const top = a[0] as T;
    const lastKey = a.pop() as number;
    const last = a.pop() as T;
    const n = a.length >> 1;
    if (n === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && (a[2 * r + 1] as number) < (a[2 * l + 1] as number) ? r : l;
      const ck = a[2 * c + 1] as number;
      if (ck >= lastKey) break;
      a[2 * i] = a[2 * c] as T;
      a[2 * i + 1] = ck;
      i = c;
    }
    a[2 * i] = last;
    a[2 * i + 1] = lastKey;
    return top;
  }

  clear(): void {
    this.#slots.length = 0;
  }
}
