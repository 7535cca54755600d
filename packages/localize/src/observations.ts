/**
 * The observed cells in columns of typed arrays: a 500-node full mesh is a million cells over four protocols, so
 * cells are indices into flat arrays rather than a million objects. Nodes are numbered in the order given.
 */
import { type CellState, type LocalizeNode, type Observation, PROTOCOLS, type Protocol } from "./types.ts";

export const OK = 0;
export const FAIL = 1;
export const LOSSY = 2;
const STATE_CODE: Readonly<Record<CellState, number>> = { ok: OK, fail: FAIL, lossy: LOSSY };
export const PROTOCOL_CODE: Readonly<Record<Protocol, number>> = { tcp: 0, udp: 1, icmp: 2, pmtu: 3 };
export const PMTU = 3;

function grow<T extends Int32Array | Uint8Array | Float32Array>(a: T, make: (n: number) => T): T {
  const b = make(a.length * 2);
  b.set(a);
  return b;
}

/** Nodes and the cells observed among them. */
export class Observations {
  readonly nodes: readonly LocalizeNode[];
  readonly zoneNames: string[] = [];
  /** zone index of each node */
  readonly zoneOf: Int32Array;
  private readonly index = new Map<string, number>();
  private readonly zoneIndex = new Map<string, number>();
  size = 0;
  protocol: Uint8Array;
  source: Int32Array;
  destination: Int32Array;
  state: Uint8Array;
  loss: Float32Array;
  /** pmtu only: bytes that crossed, bytes probed (0 = not reported) */
  bytes: Int32Array;
  probe: Int32Array;

  /** `capacity`: the cells expected (they may be more; the arrays grow) */
  constructor(nodes: readonly LocalizeNode[], capacity = 1024) {
    const c = Math.max(16, capacity);
    this.protocol = new Uint8Array(c);
    this.source = new Int32Array(c);
    this.destination = new Int32Array(c);
    this.state = new Uint8Array(c);
    this.loss = new Float32Array(c);
    this.bytes = new Int32Array(c);
    this.probe = new Int32Array(c);
    this.nodes = nodes;
    this.zoneOf = new Int32Array(nodes.length);
    nodes.forEach((n, i) => {
      if (this.index.has(n.name)) throw new Error(`node ${JSON.stringify(n.name)} given twice`);
      this.index.set(n.name, i);
      let z = this.zoneIndex.get(n.zone);
      if (z === undefined) {
        z = this.zoneNames.length;
        this.zoneIndex.set(n.zone, z);
        this.zoneNames.push(n.zone);
      }
      this.zoneOf[i] = z;
    });
  }

  /** The index of a node, or undefined for a name not among the nodes. */
  nodeIndex(name: string): number | undefined {
    return this.index.get(name);
  }

  /** Adds one cell; a cell naming an unknown node or a node paired with itself is ignored (false). */
  add(o: Observation): boolean {
    const s = this.index.get(o.source);
    const d = this.index.get(o.destination);
    if (s === undefined || d === undefined || s === d) return false;
    this.addIndexed(PROTOCOL_CODE[o.protocol], s, d, STATE_CODE[o.state], o);
    return true;
  }

  /** Adds one cell by node indices (the console walks its nodes in order). */
  addIndexed(
    protocol: number,
    source: number,
    destination: number,
    state: number,
    figures?: { lossRatio?: number; pmtuBytes?: number; probeBytes?: number },
  ): void {
    if (this.size === this.state.length) {
      this.protocol = grow(this.protocol, (n) => new Uint8Array(n));
      this.source = grow(this.source, (n) => new Int32Array(n));
      this.destination = grow(this.destination, (n) => new Int32Array(n));
      this.state = grow(this.state, (n) => new Uint8Array(n));
      this.loss = grow(this.loss, (n) => new Float32Array(n));
      this.bytes = grow(this.bytes, (n) => new Int32Array(n));
      this.probe = grow(this.probe, (n) => new Int32Array(n));
    }
    const i = this.size++;
    this.protocol[i] = protocol;
    this.source[i] = source;
    this.destination[i] = destination;
    this.state[i] = state;
    this.loss[i] = figures?.lossRatio ?? 0;
    this.bytes[i] = figures?.pmtuBytes ?? 0;
    this.probe[i] = figures?.probeBytes ?? 0;
  }

  /** The state code of the cell, by its protocol and nodes, as a code (-1: not observed). Linear; for tests. */
  find(protocol: Protocol, source: string, destination: string): number {
    const p = PROTOCOL_CODE[protocol];
    const s = this.index.get(source);
    const d = this.index.get(destination);
    for (let i = 0; i < this.size; i++)
      if (this.protocol[i] === p && this.source[i] === s && this.destination[i] === d)
        return this.state[i] ?? -1;
    return -1;
  }
}

/** Builds the observations of `nodes` from cell objects (the bench and the tests; the console adds by index). */
export function observe(nodes: readonly LocalizeNode[], cells: Iterable<Observation>): Observations {
  const o = new Observations(nodes);
  for (const c of cells) o.add(c);
  return o;
}

export const protocolName = (code: number): Protocol => PROTOCOLS[code] ?? "tcp";
