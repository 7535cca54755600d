import {
  createPairStateServiceClient,
  grpc,
  type PairStatePlane,
  type PairStateServiceClient,
  type ReportPairStateRequest,
  type ReportPairStateResponse,
} from "@svc/protocol";
import { type BackoffPolicy, backoffDelay } from "./backoff.ts";
import { type Clock, type ClockEntry, timerClock } from "./clock.ts";
import { type ControllerChannel, controllerChannel } from "./controller-channel.ts";

/** Changes are sent this long after the first of them, so a round's results go in one report. */
export const PAIR_STATE_FLUSH_MS = 100;
/** A report (empty when nothing changed) at least this often: the controller drops a source silent for 30 s. */
export const PAIR_STATE_KEEPALIVE_MS = 10_000;
/** Retry after a failed report: 1 s doubling to 30 s. */
export const PAIR_STATE_BACKOFF: BackoffPolicy = { initialMs: 1000, maxMs: 30_000, jitter: 0.25 };
/** A controller without the service (UNIMPLEMENTED: older than this agent) is asked again after this long. */
export const PAIR_STATE_UNIMPLEMENTED_RETRY_MS = 300_000;
const DEADLINE_MS = 5000;

/** Sends one report; rejects with the call's error (a grpc.ServiceError from the controller). */
export type PairStateSend = (req: ReportPairStateRequest) => Promise<ReportPairStateResponse>;

export interface PairStateReporterOptions {
  /** the agent's id once registered (undefined: nothing is sent yet) */
  agentId: () => string | undefined;
  send: PairStateSend;
  clock?: Clock;
  flushMs?: number;
  keepaliveMs?: number;
  backoff?: BackoffPolicy;
  random?: () => number;
  /** told when a report failed and when reports go through again */
  onStatus?: (status: { ok: boolean; error?: string }) => void;
}

const key = (plane: string, destination: string) => `${plane}\n${destination}`;

/**
 * The agent's side of svc.v1.PairStateService: keeps its pairs in trouble now (set()) and reports them to the
 * controller as they change, so the console sees a pair turn bad without waiting for the metrics backend. The
 * first report after a start, a failure or a `need_full` answer holds the whole set; the others the changes since
 * the report before (seq + 1). One report is in flight at a time; changes during it go in the next.
 */
export class PairStateReporter {
  readonly #o: PairStateReporterOptions;
  readonly #clock: Clock;
  readonly #flushMs: number;
  readonly #keepaliveMs: number;
  readonly #backoff: BackoffPolicy;
  /** what is in trouble now */
  readonly #now = new Map<string, { plane: string; destination: string; ratio: number }>();
  /** what the controller holds as of the last report it took (when #full is false) */
  #sent = new Map<string, number>();
  #full = true;
  #seq = 0;
  #inFlight = false;
  #timer: ClockEntry | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #lastSent = Number.NEGATIVE_INFINITY;
  #attempt = 0;
  #failing = false;
  #started = false;
  #stopped = false;

  constructor(opts: PairStateReporterOptions) {
    this.#o = opts;
    this.#clock = opts.clock ?? timerClock;
    this.#flushMs = opts.flushMs ?? PAIR_STATE_FLUSH_MS;
    this.#keepaliveMs = opts.keepaliveMs ?? PAIR_STATE_KEEPALIVE_MS;
    this.#backoff = opts.backoff ?? PAIR_STATE_BACKOFF;
  }

  /** The pair's state now: `ratio` > 0 in trouble (svc_peer_problem_ratio's value), undefined fine. */
  set(plane: PairStatePlane, destination: string, ratio: number | undefined): void {
    const k = key(plane, destination);
    const was = this.#now.get(k)?.ratio;
    if (was === ratio) return;
    if (ratio === undefined) this.#now.delete(k);
    else this.#now.set(k, { plane, destination, ratio });
    this.#changedNow();
  }

  /** Forgets every pair of `destination` (it left the peer list). */
  forgetDestination(destination: string): void {
    this.#forget((v) => v.destination === destination);
  }

  /** Forgets every pair of `plane` (its checker was switched off). */
  forgetPlane(plane: PairStatePlane): void {
    this.#forget((v) => v.plane === plane);
  }

  #forget(which: (v: { plane: string; destination: string }) => boolean): void {
    for (const [k, v] of [...this.#now]) if (which(v)) this.#now.delete(k);
    this.#changedNow();
  }

  /** A change: the next report goes one flush from now (a failing reporter waits for its retry instead). */
  #changedNow(): void {
    if (this.#started && !this.#failing) this.#schedule(this.#clock.now() + this.#flushMs);
  }

  /** Starts reporting (the first report once the agent is registered). */
  start(): void {
    if (this.#started || this.#stopped) return;
    this.#started = true;
    this.#schedule(this.#clock.now());
  }

  stop(): void {
    this.#stopped = true;
    this.#timer?.cancel();
    this.#timer = undefined;
  }

  /** Reports the controller took (tests and metrics). */
  get seq(): number {
    return this.#seq;
  }

  #schedule(at: number): void {
    if (this.#stopped || this.#inFlight || at >= this.#timerAt) return;
    this.#timer?.cancel();
    this.#timerAt = at;
    this.#timer = this.#clock.schedule(at, () => {
      this.#timer = undefined;
      this.#timerAt = Number.POSITIVE_INFINITY;
      void this.#flush();
    });
  }

  async #flush(): Promise<void> {
    if (this.#stopped || this.#inFlight) return;
    const agentId = this.#o.agentId();
    const now = this.#clock.now();
    if (agentId === undefined) {
      this.#schedule(now + 250);
      return;
    }
    const req = this.#request(agentId);
    if (req === undefined) {
      this.#schedule(this.#lastSent + this.#keepaliveMs);
      return;
    }
    const snapshot = new Map([...this.#now].map(([k, v]) => [k, v.ratio]));
    this.#inFlight = true;
    let retryAt: number;
    try {
      const res = await this.#o.send(req);
      this.#lastSent = this.#clock.now();
      this.#attempt = 0;
      if (this.#failing) this.#o.onStatus?.({ ok: true });
      this.#failing = false;
      if (res.need_full) {
        this.#full = true;
        retryAt = this.#clock.now();
      } else {
        this.#seq = req.seq;
        this.#sent = snapshot;
        this.#full = false;
        retryAt = this.#changed() ? this.#clock.now() : this.#lastSent + this.#keepaliveMs;
      }
    } catch (err) {
      // whether it was applied is unknown: the next report holds the whole set
      this.#full = true;
      this.#failing = true;
      const code = (err as Partial<grpc.ServiceError>).code;
      this.#o.onStatus?.({ ok: false, error: (err as Error).message });
      retryAt =
        this.#clock.now() +
        (code === grpc.status.UNIMPLEMENTED
          ? PAIR_STATE_UNIMPLEMENTED_RETRY_MS
          : backoffDelay(this.#attempt++, this.#backoff, this.#o.random));
    } finally {
      this.#inFlight = false;
    }
    this.#schedule(retryAt);
  }

  /** The next report: the whole set, the changes, or an empty keepalive when due; undefined when none is due. */
  #request(agentId: string): ReportPairStateRequest | undefined {
    const seq = this.#seq + 1;
    const all = [...this.#now.values()].map((v) => ({
      destination_node: v.destination,
      plane: v.plane,
      ratio: v.ratio,
    }));
    if (this.#full) return { agent_id: agentId, seq, full: true, problems: all, cleared: [] };
    const problems = all.filter((p) => this.#sent.get(key(p.plane, p.destination_node)) !== p.ratio);
    const cleared = [...this.#sent.keys()]
      .filter((k) => !this.#now.has(k))
      .map((k) => {
        const cut = k.indexOf("\n");
        return { destination_node: k.slice(cut + 1), plane: k.slice(0, cut), ratio: 0 };
      });
    const due = this.#clock.now() >= this.#lastSent + this.#keepaliveMs;
    if (problems.length === 0 && cleared.length === 0 && !due) return undefined;
    return { agent_id: agentId, seq, full: false, problems, cleared };
  }

  #changed(): boolean {
    if (this.#now.size !== this.#sent.size) return true;
    for (const [k, v] of this.#now) if (this.#sent.get(k) !== v.ratio) return true;
    return false;
  }
}

/** A PairStateSend over a ControllerChannel (re-dialled after `not the leader`), and the channel to close. */
export function pairStateSender(
  address: string,
  credentials?: grpc.ChannelCredentials,
  interceptors: grpc.Interceptor[] = [],
): { send: PairStateSend; channel: ControllerChannel<PairStateServiceClient> } {
  const channel = controllerChannel(createPairStateServiceClient, address, credentials, interceptors);
  const send: PairStateSend = (req) =>
    new Promise((resolve, reject) => {
      channel.get().ReportPairState(req, { deadline: Date.now() + DEADLINE_MS }, (err, res) => {
        if (err || !res) {
          if (err?.code === grpc.status.UNAVAILABLE) channel.redial();
          reject(err ?? new Error("empty response"));
        } else resolve(res);
      });
    });
  return { send, channel };
}
