/**
 * Maintenance holds (spec §3.4, §6.3 point 7) between the alert poller and the webhook dispatcher: an alert.fired
 * noticed while a matching window is open is held until the (latest) matching window closes, then handed on only if
 * the alert is still firing with the same firedAt (its original firedAt, a fresh sentAt); an alert.resolved noticed
 * inside a matching window, or ending a held alert, is never handed on. Every held or dropped edge counts in
 * `svc_console_webhook_suppressed_total{event}`.
 *
 * Holds are kept in the database (hold-store.ts) as well as in memory, so a restart does not lose them: restore()
 * re-arms every stored hold at its close (at once when the close passed while the console was down). At a close the
 * gate asks whether the alert still fires; until the restarted poller has taken its baseline the answer is unknown
 * and the close is asked again `retryMs` later. A close whose window check fails (database down) is retried too.
 */

import { type AlertTransition, type AlertTransitionSink, alertKey } from "../alerts/poller.ts";
import type { Scheduler } from "../events/ingester.ts";
import type { WindowSpan } from "../maintenance/windows.ts";
import type { HoldStore } from "./hold-store.ts";

/** Options of MaintenanceGate. */
export interface MaintenanceGateOptions {
  next: AlertTransitionSink;
  /** windows matching `labels` open at `at` (epoch ms) */
  windows: (labels: Record<string, string>, at: number) => Promise<WindowSpan[]>;
  /**
   * true while the poller still sees this alert firing with this firedAt; undefined while it cannot tell yet (no
   * baseline since the start)
   */
  stillFiring: (t: AlertTransition) => boolean | undefined;
  scheduler: Scheduler;
  /** where holds outlive a restart; none = memory only */
  store?: HoldStore;
  /** how long to wait before asking a close again (unknown firing state, failed window check); default 30 s */
  retryMs?: number;
  onSuppressed?: (event: AlertTransition["event"]) => void;
  onError?: (err: string) => void;
}

const DEFAULT_RETRY_MS = 30_000;

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Holds alert edges that fall inside matching maintenance windows. */
export class MaintenanceGate implements AlertTransitionSink {
  private readonly held = new Map<string, { t: AlertTransition; timer: { cancel(): void } }>();
  private stopped = false;

  constructor(private readonly opts: MaintenanceGateOptions) {}

  /** Alerts held now. */
  heldCount(): number {
    return this.held.size;
  }

  /** Re-arms the holds stored before a restart; resolves with how many (a failure is reported, not thrown). */
  async restore(): Promise<number> {
    const store = this.opts.store;
    if (!store) return 0;
    try {
      const edges = await store.load();
      let n = 0;
      for (const e of edges) {
        if (this.stopped || this.held.has(e.key)) continue;
        this.arm(e.key, e.transition, e.until);
        n++;
      }
      return n;
    } catch (e) {
      this.opts.onError?.(`maintenance holds not restored: ${message(e)}`);
      return 0;
    }
  }

  /** Cancels every timer; stored holds stay for the next start. */
  stop(): void {
    this.stopped = true;
    for (const h of this.held.values()) h.timer.cancel();
    this.held.clear();
  }

  async transitions(batch: readonly AlertTransition[]): Promise<void> {
    const pass: AlertTransition[] = [];
    for (const t of batch) {
      const key = `${alertKey(t.labels)}@${t.firedAt}`;
      if (t.event === "alert.fired") {
        if (await this.hold(key, t, Date.parse(t.at))) continue;
        pass.push(t);
        continue;
      }
      const h = this.held.get(key);
      if (h) {
        h.timer.cancel();
        this.held.delete(key);
        await this.forget(key);
        this.opts.onSuppressed?.("alert.resolved");
        continue;
      }
      if ((await this.opts.windows(t.labels, Date.parse(t.at))).length > 0) {
        this.opts.onSuppressed?.("alert.resolved");
        continue;
      }
      pass.push(t);
    }
    if (pass.length > 0) await this.opts.next.transitions(pass);
  }

  /** Holds `t` when a matching window is open at `at`; true when held. */
  private async hold(key: string, t: AlertTransition, at: number): Promise<boolean> {
    const open = await this.opts.windows(t.labels, at);
    if (open.length === 0) return false;
    const until = Math.max(...open.map((w) => w.endAt));
    if (!this.held.has(key)) this.opts.onSuppressed?.("alert.fired");
    this.arm(key, t, until);
    try {
      await this.opts.store?.save({ key, transition: t, until });
    } catch (e) {
      this.opts.onError?.(`maintenance hold kept in memory only: ${message(e)}`);
    }
    return true;
  }

  /** (Re)plans the close of a held edge at `until`. */
  private arm(key: string, t: AlertTransition, until: number): void {
    if (this.stopped) return;
    this.held.get(key)?.timer.cancel();
    const timer = this.opts.scheduler.schedule(until, (now) => void this.close(key, now));
    this.held.set(key, { t, timer });
  }

  private async forget(key: string): Promise<void> {
    try {
      await this.opts.store?.remove(key);
    } catch (e) {
      this.opts.onError?.(`maintenance hold not removed: ${message(e)}`);
    }
  }

  /**
   * A held edge's window closed: hold again if another window is open now; ask again later while the firing state
   * is unknown or the windows cannot be read; else hand it on if still firing.
   */
  private async close(key: string, now: number): Promise<void> {
    const h = this.held.get(key);
    if (!h || this.stopped) return;
    const retry = now + (this.opts.retryMs ?? DEFAULT_RETRY_MS);
    try {
      if (await this.hold(key, h.t, now)) return; // a window was extended or another one opened
    } catch (e) {
      this.opts.onError?.(`maintenance hold: windows unreadable, asking again: ${message(e)}`);
      this.arm(key, h.t, retry);
      return;
    }
    const firing = this.opts.stillFiring(h.t);
    if (firing === undefined) {
      this.arm(key, h.t, retry);
      return;
    }
    this.held.delete(key);
    await this.forget(key);
    if (!firing) return;
    try {
      await this.opts.next.transitions([h.t]);
    } catch (e) {
      this.opts.onError?.(`held alert not handed on: ${message(e)}`);
    }
  }
}
