/**
 * Maintenance holds (spec §3.4, §6.3 point 7) between the alert poller and the webhook dispatcher: an alert.fired
 * noticed while a matching window is open is held until the (latest) matching window closes, then handed on only if
 * the alert is still firing with the same firedAt (its original firedAt, a fresh sentAt); an alert.resolved noticed
 * inside a matching window, or ending a held alert, is never handed on. Every held or dropped edge counts in
 * `svc_console_webhook_suppressed_total{event}`. Holds live in memory: a restart's baseline poll re-learns the
 * firing set and delivers nothing (spec §3.4), so a hold lost in a restart is not re-sent either.
 */

import { type AlertTransition, type AlertTransitionSink, alertKey } from "../alerts/poller.ts";
import type { Scheduler } from "../events/ingester.ts";
import type { WindowSpan } from "../maintenance/windows.ts";

/** Options of MaintenanceGate. */
export interface MaintenanceGateOptions {
  next: AlertTransitionSink;
  /** windows matching `labels` open at `at` (epoch ms) */
  windows: (labels: Record<string, string>, at: number) => Promise<WindowSpan[]>;
  /** true while the poller still sees this alert firing with this firedAt */
  stillFiring: (t: AlertTransition) => boolean;
  scheduler: Scheduler;
  onSuppressed?: (event: AlertTransition["event"]) => void;
}

/** Holds alert edges that fall inside matching maintenance windows. */
export class MaintenanceGate implements AlertTransitionSink {
  private readonly held = new Map<string, { t: AlertTransition; timer: { cancel(): void } }>();

  constructor(private readonly opts: MaintenanceGateOptions) {}

  /** Alerts held now. */
  heldCount(): number {
    return this.held.size;
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
    const timer = this.opts.scheduler.schedule(until, (now) => void this.close(key, now));
    this.held.set(key, { t, timer });
    return true;
  }

  /** A held edge's window closed: hold again if another window is open now, else hand it on if still firing. */
  private async close(key: string, now: number): Promise<void> {
    const h = this.held.get(key);
    if (!h) return;
    this.held.delete(key);
    try {
      if (await this.hold(key, h.t, now)) return; // a window was extended or another one opened
      if (this.opts.stillFiring(h.t)) await this.opts.next.transitions([h.t]);
    } catch {
      // the database could not say: the edge is dropped like a restart would drop it
    }
  }
}
