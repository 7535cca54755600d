/** A binary min-heap ordered by a numeric key read from each item. */
export class MinHeap<T> {
  readonly #items: T[] = [];
  constructor(readonly key: (item: T) => number) {}

  get size(): number {
    return this.#items.length;
  }

  peek(): T | undefined {
    return this.#items[0];
  }

  push(item: T): void {
    const a = this.#items;
    a.push(item);
    let i = a.length - 1;
    const k = this.key(item);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = a[parent] as T;
      if (this.key(p) <= k) break;
      a[i] = p;
      i = parent;
    }
    a[i] = item;
  }

  pop(): T | undefined {
    const a = this.#items;
    const top = a[0];
    const last = a.pop();
    if (a.length === 0 || last === undefined) return top;
    const k = this.key(last);
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= a.length) break;
      const r = l + 1;
      const c = r < a.length && this.key(a[r] as T) < this.key(a[l] as T) ? r : l;
      const child = a[c] as T;
      if (this.key(child) >= k) break;
      a[i] = child;
      i = c;
    }
    a[i] = last;
    return top;
  }

  clear(): void {
    this.#items.length = 0;
  }
}
