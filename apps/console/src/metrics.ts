/** The console's own metric families (reference/metrics.md), in a registry of their own. */
import { Counter, Gauge, Registry } from "prom-client";

/** Metric families of the console platform slice. Prefix `svc` gives `svc_console_...`. */
export class ConsoleMetrics {
  readonly registry = new Registry();
  /** `<prefix>_console_rate_limited_total{limit}` */
  readonly rateLimited: Counter<"limit">;
  /** `<prefix>_console_sign_ins_total{mode,result}` */
  readonly signIns: Counter<"mode" | "result">;
  /** `<prefix>_console_sessions_purged_total` */
  readonly sessionsPurged: Counter;
  /** `<prefix>_console_ws_refused_total{limit}`: sockets closed with 1013 by a connection cap */
  readonly wsRefused: Counter<"limit">;
  /** `<prefix>_console_external_specs_skipped_total{reason}`: external-check specs left out of a fan-out */
  readonly externalSpecsSkipped: Counter<"reason">;
  /** `<prefix>_console_webhook_suppressed_total{event}`: alert edges held or dropped by maintenance windows */
  readonly webhookSuppressed: Counter<"event">;

  constructor(prefix: string, sources: { storeReady: () => boolean }) {
    this.rateLimited = new Counter({
      name: `${prefix}_console_rate_limited_total`,
      help: "Requests refused by a rate limit, by limit.",
      labelNames: ["limit"],
      registers: [this.registry],
    });
    this.signIns = new Counter({
      name: `${prefix}_console_sign_ins_total`,
      help: "Sign-in attempts by mode and result (success, denied, limited).",
      labelNames: ["mode", "result"],
      registers: [this.registry],
    });
    this.sessionsPurged = new Counter({
      name: `${prefix}_console_sessions_purged_total`,
      help: "Sessions deleted for passing their absolute or idle bound.",
      registers: [this.registry],
    });
    this.wsRefused = new Counter({
      name: `${prefix}_console_ws_refused_total`,
      help: "WebSocket connections refused by a cap (closed with 1013), by limit (total, address, subject).",
      labelNames: ["limit"],
      registers: [this.registry],
    });
    for (const limit of ["total", "address", "subject"]) this.wsRefused.inc({ limit }, 0);
    this.externalSpecsSkipped = new Counter({
      name: `${prefix}_console_external_specs_skipped_total`,
      help: "External-check specs left out of a send to the controller, by reason (over-budget).",
      labelNames: ["reason"],
      registers: [this.registry],
    });
    this.externalSpecsSkipped.inc({ reason: "over-budget" }, 0);
    this.webhookSuppressed = new Counter({
      name: `${prefix}_console_webhook_suppressed_total`,
      help: "Alert webhook edges held or dropped by a maintenance window, by event (alert.fired, alert.resolved).",
      labelNames: ["event"],
      registers: [this.registry],
    });
    for (const event of ["alert.fired", "alert.resolved"]) this.webhookSuppressed.inc({ event }, 0);
    new Gauge({
      name: `${prefix}_console_store_ready`,
      help: "1 when the console store is migrated and reachable (or not configured), else 0.",
      registers: [this.registry],
      collect() {
        this.set(sources.storeReady() ? 1 : 0);
      },
    });
  }

  /** The exposition text and its content type. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
