import { byNodeThenId, type PeerList, type PeerMessage, withPeerWire } from "@svc/protocol";
import type { AgentRegistry, RegistryChange } from "../registry/registry.ts";
import { PEER_LIST_MAX_BYTES, peerListSize, splitPeerList } from "./peer-list-chunks.ts";
import { peerKey, peerMessage } from "./peer-message.ts";

/** Longest run of sends before the broadcaster lets other work in, ms. */
export const PUMP_SLICE_MS = 10;

/** A WatchPeers stream as the broadcaster sees it. */
export interface PeerSubscriber {
  agentId: string;
  /** the watcher asked for deltas (`WatchPeersRequest.incremental`); default false: full lists only */
  incremental?: boolean;
  /**
   * Sends one message. `sent` must be called once the message has left (handed to the transport, or failed);
   * the subscriber gets no further message until then, and messages of all subscribers in flight together are
   * bounded (`maxInFlightPeers`).
   */
  send(list: PeerList, sent: () => void): void;
  /** ends the stream (controller shutting down) */
  end(): void;
  /**
   * ends the stream with a refusal: a watcher that takes only full lists would need one larger than
   * `maxMessageBytes` (it would fail on receipt anyway); default: end()
   */
  refuse?(reason: string): void;
}

export interface PeerBroadcasterOptions {
  registry: AgentRegistry;
  /** ms to coalesce a burst of registry changes into one update */
  debounceMs?: number;
  /** called once per PeerList sent */
  onSent?: () => void;
  /** node names a node is planned to probe; undefined = full mesh (default: always full mesh) */
  planned?: (nodeName: string) => string[] | undefined;
  /**
   * budget of peer entries (plus one per message) in flight to all subscribers together, default 50000 (~10 MB
   * encoded): a message starts only while less is in flight; other subscribers wait, their changes coalescing,
   * so a fleet-wide (re)registration does not queue gigabytes of peer lists in the controller
   */
  maxInFlightPeers?: number;
  /**
   * ms after which a message that has not left stops counting against the budget (default 10000), so a few
   * stalled watchers (a frozen agent, a half-open connection) cannot hold up everyone else; the stalled
   * watcher itself still gets nothing more until its message leaves
   */
  stalledAfterMs?: number;
  /**
   * largest message, bytes (default PEER_LIST_MAX_BYTES): a larger list goes to an incremental watcher as a full
   * list followed by deltas; a watcher taking only full lists is refused instead of sent what it cannot receive
   */
  maxMessageBytes?: number;
}

/** What a subscriber was last told about itself. */
interface SubscriberView {
  sparse: boolean;
  planned: readonly string[];
  zone: string;
}

interface SubscriberState {
  /** undefined: nothing sent yet (the next message is the full list) */
  view: SubscriberView | undefined;
  /** the peer-set version its last message reflected */
  sentVersion: number;
  /** budget held by its message in flight (0 = none in flight) */
  inFlight: number;
  flying: boolean;
  /** when its message in flight was sent (performance.now()) */
  since: number;
  /** a broadcast happened while its message was in flight: check again once it has left */
  recheck: boolean;
}

/** A peer as last committed, with a canonical key to detect changes. */
interface KnownPeer {
  msg: PeerMessage;
  key: string;
}

/**
 * Fans peer lists out to WatchPeers subscribers. A subscriber first gets the full list (every registered agent
 * except itself). After every burst of registry changes (debounced) or `refresh()`, a subscriber gets a message
 * only when its view changed: a peer was added, changed or removed, or its own `planned` list, `sparse` flag or
 * zone changed. A subscriber that opted in (`incremental`) gets a delta (`delta` true, `peers` = added or changed
 * peers, `removed` = agent ids gone, the changes since its previous message); any other subscriber gets the full
 * list, as agents before deltas expect. `sparse`, `planned` and `zone` are always complete. Full mesh: `sparse`
 * false, `planned` empty; under a sparse plan `sparse` true and `planned` the node names the subscriber is planned
 * to probe. A re-registration that changes nothing a peer sees sends nothing. Each subscriber has at most one
 * message in flight; changes arriving meanwhile are coalesced into its next message. Sends run in slices of
 * PUMP_SLICE_MS, so a change fanned out to thousands of watchers does not hold up heartbeats and HTTP requests.
 */
export class PeerBroadcaster {
  readonly #registry: AgentRegistry;
  readonly #debounceMs: number;
  readonly #onSent: () => void;
  readonly #planned: (nodeName: string) => string[] | undefined;
  readonly #maxInFlight: number;
  readonly #maxBytes: number;
  readonly #subscribers = new Map<PeerSubscriber, SubscriberState>();
  /** subscribers that may need a message, in arrival order */
  readonly #ready = new Set<PeerSubscriber>();
  readonly #unsubscribeRegistry: () => void;
  /** peers as last committed, by agent id */
  readonly #known = new Map<string, KnownPeer>();
  /** agent ids changed in the registry since the last commit */
  readonly #dirty = new Set<string>();
  /** ids changed by each commit step: #log[i] changed at version #logStart + i + 1 */
  #log: string[] = [];
  #logStart = 0;
  #version = 0;
  /** #known sorted by node name then id; undefined when stale */
  #sorted: PeerMessage[] | undefined;
  #inFlight = 0;
  #pumping = false;
  /** a pump continuation is queued (setImmediate) */
  #resume: NodeJS.Immediate | undefined;
  #timer: NodeJS.Timeout | undefined;
  readonly #stallSweep: NodeJS.Timeout;

  constructor(opts: PeerBroadcasterOptions) {
    this.#registry = opts.registry;
    this.#debounceMs = opts.debounceMs ?? 150;
    this.#onSent = opts.onSent ?? (() => {});
    this.#planned = opts.planned ?? (() => undefined);
    this.#maxInFlight = opts.maxInFlightPeers ?? 50_000;
    this.#maxBytes = opts.maxMessageBytes ?? PEER_LIST_MAX_BYTES;
    for (const a of this.#registry.list()) {
      const msg = peerMessage(a);
      this.#known.set(a.id, { msg: withPeerWire(msg), key: peerKey(msg) });
    }
    this.#unsubscribeRegistry = this.#registry.onChange((change) => this.#onChange(change));
    const stalledAfterMs = opts.stalledAfterMs ?? 10_000;
    this.#stallSweep = setInterval(
      () => this.#releaseStalled(stalledAfterMs),
      Math.min(1000, stalledAfterMs),
    );
    this.#stallSweep.unref();
  }

  /** Number of open subscriptions. */
  get size(): number {
    return this.#subscribers.size;
  }

  /**
   * Adds a subscriber; it is sent the full current list at once (or, while the in-flight budget is spent, as soon
   * as budget frees up). Returns the unsubscribe function.
   */
  subscribe(sub: PeerSubscriber): () => void {
    this.#commit();
    const state: SubscriberState = {
      view: undefined,
      sentVersion: 0,
      inFlight: 0,
      flying: false,
      since: 0,
      recheck: false,
    };
    this.#subscribers.set(sub, state);
    this.#ready.add(sub);
    this.#pump();
    return () => {
      if (this.#subscribers.get(sub) !== state) return;
      this.#subscribers.delete(sub);
      this.#ready.delete(sub);
      this.#release(state);
      this.#pump();
    };
  }

  /** Stops listening to the registry, drops pending updates and ends every open stream. */
  close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#resume) clearImmediate(this.#resume);
    this.#resume = undefined;
    clearInterval(this.#stallSweep);
    this.#unsubscribeRegistry();
    const subs = [...this.#subscribers.keys()];
    this.#subscribers.clear();
    this.#ready.clear();
    for (const sub of subs) sub.end();
  }

  /** Re-checks every subscriber's view after the debounce (e.g. the probe plan changed on a config reload). */
  refresh(): void {
    this.#scheduleFlush();
  }

  #onChange(change: RegistryChange): void {
    this.#dirty.add(change.agent.id);
    if (change.kind === "registered") for (const r of change.replaced) this.#dirty.add(r.id);
    this.#scheduleFlush();
  }

  #scheduleFlush(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#flush();
    }, this.#debounceMs);
  }

  /** Moves registry changes into #known, one version per changed peer. */
  #commit(): void {
    if (this.#dirty.size === 0) return;
    for (const id of this.#dirty) {
      const agent = this.#registry.get(id);
      const old = this.#known.get(id);
      if (agent === undefined) {
        if (old === undefined) continue;
        this.#known.delete(id);
      } else {
        const msg = peerMessage(agent);
        const key = peerKey(msg);
        if (old !== undefined && old.key === key) continue;
        this.#known.set(id, { msg: withPeerWire(msg), key });
      }
      this.#log.push(id);
      this.#version++;
      this.#sorted = undefined;
    }
    this.#dirty.clear();
  }

  #flush(): void {
    this.#commit();
    for (const [sub, state] of this.#subscribers) {
      if (state.flying) state.recheck = true;
      else this.#ready.add(sub);
    }
    this.#pump();
    this.#trimLog();
  }

  /** Sends what ready subscribers need, while the in-flight budget lasts. */
  #pump(): void {
    if (this.#pumping || this.#resume) return;
    this.#pumping = true;
    const started = performance.now();
    try {
      for (const sub of this.#ready) {
        if (this.#inFlight >= this.#maxInFlight) break;
        // A change reaching 5000 watchers is 5000 sends; in one go they would hold the event loop for hundreds
        // of ms (heartbeats and HTTP requests wait). Yield after a slice and carry on from the next turn.
        if (performance.now() - started >= PUMP_SLICE_MS) {
          this.#resume = setImmediate(() => {
            this.#resume = undefined;
            this.#pump();
          });
          break;
        }
        this.#ready.delete(sub);
        const state = this.#subscribers.get(sub);
        if (state === undefined) continue;
        if (state.flying) {
          state.recheck = true;
          continue;
        }
        this.#update(sub, state);
      }
    } finally {
      this.#pumping = false;
    }
  }

  #update(sub: PeerSubscriber, state: SubscriberState): void {
    const view = this.#viewOf(sub.agentId);
    const before = state.view;
    let list: PeerList;
    if (before === undefined || state.sentVersion < this.#logStart) {
      list = { peers: this.#peersFor(sub.agentId), ...wireView(view) };
    } else {
      const changed = new Set(this.#log.slice(state.sentVersion - this.#logStart));
      changed.delete(sub.agentId);
      if (changed.size === 0 && sameView(before, view)) {
        state.sentVersion = this.#version;
        return;
      }
      if (sub.incremental === true) {
        const peers: PeerMessage[] = [];
        const removed: string[] = [];
        for (const id of changed) {
          const known = this.#known.get(id);
          if (known === undefined) removed.push(id);
          else peers.push(known.msg);
        }
        list = { peers, removed, delta: true, ...wireView(view) };
      } else {
        list = { peers: this.#peersFor(sub.agentId), ...wireView(view) };
      }
    }
    const messages = sub.incremental === true ? splitPeerList(list, this.#maxBytes) : [list];
    if (sub.incremental !== true && peerListSize(list) > this.#maxBytes) {
      this.#refuse(sub, state, list);
      return;
    }
    state.view = view;
    state.sentVersion = this.#version;
    state.flying = true;
    state.since = performance.now();
    state.inFlight = list.peers.length + messages.length;
    this.#inFlight += state.inFlight;
    // One message in flight per subscriber: the next part goes once the previous one has left.
    let next = 0;
    const sendNext = (): void => {
      const message = messages[next++];
      if (message === undefined) {
        this.#sent(sub, state);
        return;
      }
      let done = false;
      sub.send(message, () => {
        if (done) return;
        done = true;
        if (this.#subscribers.get(sub) === state) sendNext();
        else this.#sent(sub, state);
      });
      this.#onSent();
    };
    sendNext();
  }

  /** Ends a full-list watcher's stream: its list has outgrown what one message may carry. */
  #refuse(sub: PeerSubscriber, state: SubscriberState, list: PeerList): void {
    this.#subscribers.delete(sub);
    this.#ready.delete(sub);
    this.#release(state);
    const reason =
      `peer list of ${list.peers.length} peers is over ${this.#maxBytes} bytes, more than one message may ` +
      "carry; watch with incremental: true (agents 2.5.0+) to receive it in parts";
    if (sub.refuse) sub.refuse(reason);
    else sub.end();
  }

  #sent(sub: PeerSubscriber, state: SubscriberState): void {
    this.#release(state);
    if (this.#subscribers.get(sub) === state && state.recheck) {
      state.recheck = false;
      this.#ready.add(sub);
    }
    this.#pump();
  }

  #release(state: SubscriberState): void {
    this.#inFlight -= state.inFlight;
    state.inFlight = 0;
    state.flying = false;
  }

  /** Stops counting messages in flight for longer than `ms` against the budget. */
  #releaseStalled(ms: number): void {
    if (this.#inFlight === 0) return;
    const cutoff = performance.now() - ms;
    let released = false;
    for (const state of this.#subscribers.values()) {
      if (!state.flying || state.inFlight === 0 || state.since > cutoff) continue;
      this.#inFlight -= state.inFlight;
      state.inFlight = 0;
      released = true;
    }
    if (released) this.#pump();
  }

  /** Drops log entries every subscriber has seen; a subscriber left too far behind gets a full list instead. */
  #trimLog(): void {
    let min = this.#version;
    for (const s of this.#subscribers.values()) if (s.view !== undefined) min = Math.min(min, s.sentVersion);
    const cap = Math.max(1024, 2 * this.#known.size);
    const drop = Math.max(min - this.#logStart, this.#log.length - cap);
    if (drop <= 0) return;
    this.#log = this.#log.slice(drop);
    this.#logStart += drop;
  }

  #peersFor(agentId: string): PeerMessage[] {
    if (this.#sorted === undefined) {
      this.#sorted = [...this.#known.values()].map((k) => k.msg).sort(byNodeThenId);
    }
    return this.#sorted.filter((p) => p.agent_id !== agentId);
  }

  #viewOf(agentId: string): SubscriberView {
    const me = this.#registry.get(agentId);
    const planned = me === undefined ? undefined : this.#planned(me.nodeName);
    return { sparse: planned !== undefined, planned: planned ?? [], zone: me?.zone ?? "" };
  }
}

function wireView(v: SubscriberView): Pick<PeerList, "sparse" | "planned" | "zone"> {
  return { sparse: v.sparse, planned: [...v.planned], zone: v.zone };
}

function sameView(a: SubscriberView, b: SubscriberView): boolean {
  return (
    a.sparse === b.sparse &&
    a.zone === b.zone &&
    a.planned.length === b.planned.length &&
    a.planned.every((n, i) => n === b.planned[i])
  );
}
