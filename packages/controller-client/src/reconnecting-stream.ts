import { type BasicLogger as Logger, silentLogger } from "@svc/core";
import { grpc } from "@svc/protocol";
import { type BackoffPolicy, backoffDelay, REGISTER_BACKOFF } from "./backoff.ts";
import { type Clock, type ClockEntry, timerClock } from "./clock.ts";
import type { Readiness } from "./controller-channel.ts";

/** The status details a standby controller refuses leader-only streams with (code UNAVAILABLE). */
export const NOT_THE_LEADER = "not the leader";

/** What the helper needs of a server-streaming call (a grpc-js ClientReadableStream is one). */
export interface StreamCall<T> {
  on(event: "metadata", listener: (headers: grpc.Metadata) => void): unknown;
  on(event: "data", listener: (msg: T) => void): unknown;
  /** err: a grpc ServiceError (code, details) */
  on(event: "error", listener: (err: Error) => void): unknown;
  on(event: "end", listener: () => void): unknown;
  cancel(): void;
}

/** What the stream is doing now. */
export type StreamState = "idle" | "opening" | "streaming" | "waiting" | "stopped";

/** Why an attempt ended, as told to onBreak. */
export interface StreamBreak {
  /** status details, error message, or "stream ended" */
  reason: string;
  /** gRPC status code, when the attempt failed with one */
  code: grpc.status | undefined;
  /** the controller answered UNAVAILABLE `not the leader` (the channel was re-dialled) */
  notLeader: boolean;
  /** the stream had delivered a message or stayed up `stableMs`: the backoff started over */
  healthy: boolean;
  /** wait before the next attempt, ms */
  retryInMs: number;
}

export interface ReconnectingStreamOptions<T> {
  /** for logs, e.g. "peer watch" */
  name: string;
  /**
   * Opens one stream. May be async (e.g. register first); a throw or rejection is a failed attempt. Returns
   * undefined when it cannot open yet (e.g. the agent is not registered): tried again after `notReadyPollMs`,
   * without counting as a failure.
   */
  open: () => StreamCall<T> | undefined | Promise<StreamCall<T> | undefined>;
  /** each message of the current stream */
  onMessage: (msg: T) => void;
  /** the current stream was confirmed by the controller (response headers or a first message) */
  onConnected?: () => void;
  /** after each failed attempt, once the retry is scheduled */
  onBreak?: (b: StreamBreak) => void;
  /**
   * re-dialled after a `not the leader` answer, so the next attempt may reach another replica; when it tells
   * readiness, a wait after an attempt that failed because the controller could not be reached ends as soon as
   * it answers again (the backoff starts over)
   */
  channel?: { redial(): void } & Partial<Readiness>;
  /** default REGISTER_BACKOFF: 2 s doubling to 30 s, up to 25 % jitter (spec §8.2) */
  backoff?: BackoffPolicy;
  /** a stream open at least this long counts as healthy even without a message, ms; default backoff.maxMs */
  stableMs?: number;
  /** wait after open() returned undefined, ms; default 250 */
  notReadyPollMs?: number;
  /** default timerClock */
  clock?: Clock;
  /** jitter source in [0, 1); default Math.random */
  random?: () => number;
  logger?: Logger;
}

/**
 * Keeps one long-lived server stream from the controller open (the agent's peer watch, tasks and external-check
 * assignments; the console's event subscription).
 *
 * Every way an attempt can end is handled the same: open() throwing, the stream failing (UNAVAILABLE when the
 * controller is down or restarting, a reset stream, UNAVAILABLE `not the leader` from a standby) or the
 * controller ending it cleanly. The next attempt waits `backoff`: 2 s, 4, 8, 16, then 30 s for every further
 * failure in a row, each less up to 25 % at random (spec §8.2), so a fleet does not reconnect in step and no wait
 * exceeds 30 s. After `not the leader` the `channel` is re-dialled first.
 *
 * Reset rule: the backoff starts over at 2 s when the stream that just ended was healthy, that is it delivered
 * at least one message or stayed open at least `stableMs` (default 30 s, the longest wait). Response headers
 * alone do not count, so a controller that accepts and then drops every stream at once is retried at growing
 * intervals, not every 2 s.
 *
 * Controller back: when the channel tells readiness and the controller could not be reached when the wait began,
 * the wait ends as soon as the channel connects again, and the backoff starts over; so after a controller
 * restart the fleet is back within about a second of it listening, not after each agent's remaining 30 s. A
 * controller that answers with an error (refusals, `not the leader`) is waited for as usual.
 *
 * stop() cancels the pending wait and the open stream; nothing runs afterwards. reconnect() replaces the open
 * stream (or the one being opened) by a new one at once, without counting a failure; during a wait it does
 * nothing (the pending attempt opens with current state). Time comes from `clock`, jitter from `random`.
 */
export class ReconnectingStream<T> {
  readonly #o: ReconnectingStreamOptions<T>;
  readonly #clock: Clock;
  readonly #backoff: BackoffPolicy;
  readonly #logger: Logger;
  #state: StreamState = "idle";
  /** attempt generation: events of older attempts are ignored */
  #gen = 0;
  #call: StreamCall<T> | undefined;
  #timer: ClockEntry | undefined;
  /** failed attempts since the last healthy stream */
  #failures = 0;
  #again = false;
  #confirmed = false;
  #delivered = false;
  #openedAt = 0;
  /** stops the readiness watch of the current wait */
  #unwatch: (() => void) | undefined;

  constructor(opts: ReconnectingStreamOptions<T>) {
    this.#o = opts;
    this.#clock = opts.clock ?? timerClock;
    this.#backoff = opts.backoff ?? REGISTER_BACKOFF;
    this.#logger = opts.logger ?? silentLogger;
  }

  /** Opens the first stream (once). */
  start(): void {
    if (this.#state !== "idle") return;
    this.#openNow();
  }

  /** Cancels the wait and the stream; no attempt follows. Idempotent. */
  stop(): void {
    if (this.#state === "stopped") return;
    this.#state = "stopped";
    this.#gen++;
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#stopWatching();
    const call = this.#call;
    this.#call = undefined;
    if (call) discard(call);
  }

  /** Replaces the open stream (or the one being opened) by a new one now; no-op while waiting or stopped. */
  reconnect(): void {
    if (this.#state === "opening") {
      this.#again = true;
    } else if (this.#state === "streaming") {
      const call = this.#call;
      this.#call = undefined;
      this.#gen++;
      if (call) discard(call);
      this.#openNow();
    }
  }

  /** True while a stream is open and the controller confirmed it (headers or a message). */
  connected(): boolean {
    return this.#state === "streaming" && this.#confirmed;
  }

  state(): StreamState {
    return this.#state;
  }

  #openNow(): void {
    this.#timer = undefined;
    this.#stopWatching();
    const gen = ++this.#gen;
    this.#state = "opening";
    this.#again = false;
    let result: ReturnType<ReconnectingStreamOptions<T>["open"]>;
    try {
      result = this.#o.open();
    } catch (err) {
      this.#failed(gen, err);
      return;
    }
    if (result instanceof Promise) {
      result.then(
        (call) => this.#opened(gen, call),
        (err: unknown) => this.#failed(gen, err),
      );
    } else {
      this.#opened(gen, result);
    }
  }

  #opened(gen: number, call: StreamCall<T> | undefined): void {
    if (gen !== this.#gen) {
      if (call) discard(call);
      return;
    }
    if (call === undefined) {
      this.#wait(this.#o.notReadyPollMs ?? 250);
      return;
    }
    if (this.#again) {
      discard(call);
      this.#openNow();
      return;
    }
    this.#call = call;
    this.#state = "streaming";
    this.#confirmed = false;
    this.#delivered = false;
    this.#openedAt = this.#clock.now();
    call.on("metadata", () => {
      if (gen === this.#gen) this.#confirm();
    });
    call.on("data", (msg: T) => {
      if (gen !== this.#gen || this.#state !== "streaming") return;
      this.#delivered = true;
      this.#confirm();
      this.#o.onMessage(msg);
    });
    call.on("error", (err: unknown) => this.#broken(gen, err));
    call.on("end", () => this.#broken(gen, undefined));
  }

  #confirm(): void {
    if (this.#confirmed) return;
    this.#confirmed = true;
    this.#o.onConnected?.();
  }

  #broken(gen: number, err: unknown): void {
    if (gen !== this.#gen || this.#state !== "streaming") return;
    this.#call = undefined;
    const stableMs = this.#o.stableMs ?? this.#backoff.maxMs;
    const healthy = this.#delivered || this.#clock.now() - this.#openedAt >= stableMs;
    this.#retry(err, healthy);
  }

  #failed(gen: number, err: unknown): void {
    if (gen !== this.#gen) return;
    this.#retry(err ?? new Error("open failed"), false);
  }

  #retry(err: unknown, healthy: boolean): void {
    if (healthy) this.#failures = 0;
    const { reason, code } = describe(err);
    const notLeader = code === grpc.status.UNAVAILABLE && reason === NOT_THE_LEADER;
    if (notLeader) this.#o.channel?.redial();
    const retryInMs = backoffDelay(this.#failures++, this.#backoff, this.#o.random);
    this.#wait(retryInMs);
    if (!notLeader) this.#watchForController();
    this.#logger.warn(
      { stream: this.#o.name, reason, code, retryMs: retryInMs },
      "stream broken, reconnecting",
    );
    this.#o.onBreak?.({ reason, code, notLeader, healthy, retryInMs });
  }

  /** During this wait: when the controller was unreachable and answers again, open now with a fresh backoff. */
  #watchForController(): void {
    const gen = this.#gen;
    const unwatch = this.#o.channel?.whenAnswering?.(() => {
      if (gen !== this.#gen || this.#state !== "waiting") return;
      this.#unwatch = undefined;
      this.#failures = 0;
      this.#timer?.cancel();
      this.#logger.info({ stream: this.#o.name }, "controller answering again, reconnecting now");
      this.#openNow();
    });
    this.#unwatch = unwatch;
  }

  #stopWatching(): void {
    this.#unwatch?.();
    this.#unwatch = undefined;
  }

  #wait(ms: number): void {
    this.#state = "waiting";
    const gen = this.#gen;
    this.#timer = this.#clock.schedule(this.#clock.now() + ms, () => {
      if (gen === this.#gen && this.#state === "waiting") this.#openNow();
    });
  }
}

/** Cancels a call nobody listens to any more; its CANCELLED error must still have a listener. */
function discard<T>(call: StreamCall<T>): void {
  call.on("error", () => {});
  call.cancel();
}

function describe(err: unknown): { reason: string; code: grpc.status | undefined } {
  if (err === undefined) return { reason: "stream ended", code: undefined };
  const e = err as Partial<grpc.ServiceError>;
  const code = typeof e.code === "number" ? (e.code as grpc.status) : undefined;
  const reason = e.details || e.message || String(err);
  return { reason, code };
}
