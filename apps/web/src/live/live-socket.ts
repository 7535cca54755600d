/**
 * The tab's one multiplexed WebSocket (spec §6.2): topics are subscribed through it; each topic remembers the last
 * seen `seq` and the replica that issued it, so a reconnect resubscribes with them (the issuing replica replays,
 * another reports a gap). Reconnects back off exponentially from 1 s to 15 s; the socket closes 30 s after the
 * last subscription ends. Everything timed goes through `LiveTimers`, so tests drive it in virtual time.
 */
import { type WsClientMessage, WsServerMessage } from "@svc/contract";

/** Reconnect backoff: first wait, ceiling. */
export const RECONNECT_FIRST_MS = 1000;
export const RECONNECT_MAX_MS = 15_000;
/** The socket closes this long after the last subscription ends. */
export const IDLE_CLOSE_MS = 30_000;

/** The part of the browser WebSocket this uses. */
export interface SocketLike {
  readonly readyState: number;
  onopen: ((ev: unknown) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

/** Timers (the window's, or a virtual clock in tests). */
export interface LiveTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** What a topic's listener hears. */
export type TopicSignal =
  | { kind: "event"; seq: number; data: unknown }
  | { kind: "gap"; from: number; to: number; reason: string }
  | { kind: "error"; code: string; message: string }
  | { kind: "subscribed"; seq: number };

/** Connection state as badges need it. */
export interface LiveState {
  /** the socket is open */
  connected: boolean;
  /** the console replica receives the controller stream (null before its first status) */
  fed: boolean | null;
}

type Listener = (s: TopicSignal) => void;

interface TopicState {
  listeners: Set<Listener>;
  lastSeq: number | undefined;
  replica: string | undefined;
}

/** Options of LiveSocket. */
export interface LiveSocketOptions {
  /** builds a socket to the console's /ws */
  open: () => SocketLike;
  timers: LiveTimers;
}

/** The tab's socket. */
export class LiveSocket {
  #socket: SocketLike | undefined;
  #topics = new Map<string, TopicState>();
  #stateListeners = new Set<(s: LiveState) => void>();
  #state: LiveState = { connected: false, fed: null };
  #backoff = RECONNECT_FIRST_MS;
  #reconnectTimer: unknown;
  #idleTimer: unknown;
  readonly #opts: LiveSocketOptions;

  constructor(opts: LiveSocketOptions) {
    this.#opts = opts;
  }

  /** Current connection state. */
  get state(): LiveState {
    return this.#state;
  }

  /** Listens to state changes; returns the unsubscribe. */
  onState(fn: (s: LiveState) => void): () => void {
    this.#stateListeners.add(fn);
    return () => this.#stateListeners.delete(fn);
  }

  /** Subscribes to `topic`; the returned function ends this listener (the topic ends with its last listener). */
  subscribe(topic: string, listener: Listener): () => void {
    this.#cancelIdle();
    let t = this.#topics.get(topic);
    if (!t) {
      t = { listeners: new Set(), lastSeq: undefined, replica: undefined };
      this.#topics.set(topic, t);
      this.#sendSubscribe(topic, t);
    }
    t.listeners.add(listener);
    this.#ensureOpen();
    return () => {
      const cur = this.#topics.get(topic);
      if (!cur) return;
      cur.listeners.delete(listener);
      if (cur.listeners.size > 0) return;
      this.#topics.delete(topic);
      this.#send({ type: "unsubscribe", topic: topic as WsClientMessage["topic"] });
      if (this.#topics.size === 0) this.#scheduleIdle();
    };
  }

  /** Forces the socket closed and reconnecting (tests, and a user's "reconnect"). */
  drop(): void {
    this.#socket?.close(4000, "client reconnect");
  }

  /** Closes for good. */
  close(): void {
    this.#opts.timers.clearTimeout(this.#reconnectTimer);
    this.#cancelIdle();
    this.#topics.clear();
    const s = this.#socket;
    this.#socket = undefined;
    if (s) {
      s.onclose = null;
      s.close(1000, "closed");
    }
    this.#setState({ connected: false, fed: null });
  }

  #ensureOpen(): void {
    if (this.#socket || this.#reconnectTimer !== undefined) return;
    this.#connect();
  }

  #connect(): void {
    this.#reconnectTimer = undefined;
    let s: SocketLike;
    try {
      s = this.#opts.open();
    } catch {
      this.#scheduleReconnect();
      return;
    }
    this.#socket = s;
    s.onopen = () => {
      this.#backoff = RECONNECT_FIRST_MS;
      this.#setState({ connected: true, fed: this.#state.fed });
      for (const [topic, t] of this.#topics) this.#sendSubscribe(topic, t);
    };
    s.onmessage = (ev) => this.#onMessage(ev.data);
    s.onerror = () => {};
    s.onclose = () => {
      if (this.#socket !== s) return;
      this.#socket = undefined;
      this.#setState({ connected: false, fed: this.#state.fed });
      if (this.#topics.size > 0) this.#scheduleReconnect();
    };
  }

  #scheduleReconnect(): void {
    const wait = this.#backoff;
    this.#backoff = Math.min(this.#backoff * 2, RECONNECT_MAX_MS);
    this.#reconnectTimer = this.#opts.timers.setTimeout(() => this.#connect(), wait);
  }

  #scheduleIdle(): void {
    this.#cancelIdle();
    this.#idleTimer = this.#opts.timers.setTimeout(() => {
      this.#idleTimer = undefined;
      if (this.#topics.size === 0) this.close();
    }, IDLE_CLOSE_MS);
  }

  #cancelIdle(): void {
    if (this.#idleTimer === undefined) return;
    this.#opts.timers.clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
  }

  #sendSubscribe(topic: string, t: TopicState): void {
    const msg: WsClientMessage = { type: "subscribe", topic: topic as WsClientMessage["topic"] };
    if (t.lastSeq !== undefined) {
      msg.since = t.lastSeq;
      if (t.replica !== undefined) msg.replica = t.replica;
    }
    this.#send(msg);
  }

  #send(msg: WsClientMessage): void {
    const s = this.#socket;
    if (s && s.readyState === 1) s.send(JSON.stringify(msg));
  }

  #onMessage(raw: unknown): void {
    if (typeof raw !== "string") return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return;
    }
    const m = WsServerMessage.safeParse(parsed);
    if (!m.success) return;
    const msg = m.data;
    if (msg.type === "status") {
      this.#setState({ connected: this.#state.connected, fed: msg.fed });
      return;
    }
    const topic = msg.topic;
    const t = topic === undefined ? undefined : this.#topics.get(topic);
    if (!t) return;
    const emit = (s: TopicSignal) => {
      for (const l of [...t.listeners]) l(s);
    };
    switch (msg.type) {
      case "subscribed": {
        // a fresh subscription starts at the replica's current seq; a resumed one continues from ours
        if (t.lastSeq === undefined || t.replica !== msg.replica) t.lastSeq = msg.seq;
        t.replica = msg.replica;
        emit({ kind: "subscribed", seq: msg.seq });
        return;
      }
      case "event": {
        if (t.lastSeq !== undefined && msg.seq <= t.lastSeq) return; // a replay overlapping what we hold
        if (t.lastSeq !== undefined && msg.seq > t.lastSeq + 1)
          emit({ kind: "gap", from: t.lastSeq + 1, to: msg.seq - 1, reason: "sequence" });
        t.lastSeq = msg.seq;
        emit({ kind: "event", seq: msg.seq, data: msg.data });
        return;
      }
      case "gap": {
        // the topic continues after `to`, except for another replica's cursor: that gap spans two numberings
        // (from = our cursor + 1), and the `subscribed` just before it already set where this replica stands
        if (msg.reason !== "other-replica") t.lastSeq = Math.max(t.lastSeq ?? 0, msg.to);
        emit({ kind: "gap", from: msg.from, to: msg.to, reason: msg.reason });
        return;
      }
      case "error": {
        emit({ kind: "error", code: msg.code, message: msg.message });
        return;
      }
    }
  }

  #setState(s: LiveState): void {
    if (s.connected === this.#state.connected && s.fed === this.#state.fed) return;
    this.#state = s;
    for (const l of [...this.#stateListeners]) l(s);
  }
}

/** The URL of the console's socket for a page at `location`. */
export function socketUrl(location: { protocol: string; host: string }): string {
  return `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/ws`;
}
