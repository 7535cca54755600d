/**
 * The replay ring of one topic: the newest `capacity` frames this replica sent on it, each covering a range of
 * sequence numbers (an event covers one; an upstream gap covers the events the controller said were missed), so a
 * resumed subscription is replayed exactly what it would have seen.
 */

/** One serialized server message and the sequence numbers it covers. */
export interface RingEntry {
  first: number;
  last: number;
  frame: Buffer;
}

/** A fixed-capacity ring of frames, oldest evicted first. */
export class ReplayRing {
  private readonly entries: (RingEntry | undefined)[];
  private start = 0;
  private size = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new Error(`ring capacity must be >= 1, got ${capacity}`);
    this.entries = new Array<RingEntry | undefined>(capacity);
  }

  /** Appends an entry (evicting the oldest when full). */
  push(entry: RingEntry): void {
    if (this.size < this.capacity) {
      this.entries[(this.start + this.size) % this.capacity] = entry;
      this.size++;
      return;
    }
    this.entries[this.start] = entry;
    this.start = (this.start + 1) % this.capacity;
  }

  /** First sequence number the ring still covers; undefined when empty. */
  oldest(): number | undefined {
    return this.size === 0 ? undefined : this.entries[this.start]?.first;
  }

  /** Entries covering any sequence number after `since`, oldest first. */
  after(since: number): RingEntry[] {
    const out: RingEntry[] = [];
    for (let i = 0; i < this.size; i++) {
      const e = this.entries[(this.start + i) % this.capacity];
      if (e && e.last > since) out.push(e);
    }
    return out;
  }

  get length(): number {
    return this.size;
  }
}
