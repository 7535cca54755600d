/**
 * The console's alert rules as a Prometheus rule file (spec §6.3 point 6, issue 22): one group, one alerting rule
 * per enabled rule, each labelled `svc_rule_id`. RuleFileSync writes it into `alerts.ruleDirectory` (atomically:
 * a temporary file renamed over the old one, so Prometheus never reads half a file) and asks Prometheus to reload
 * through its lifecycle API (POST /-/reload; Prometheus runs with --web.enable-lifecycle and loads
 * `<ruleDirectory>/*.yml`). Syncs are serialised; a sync requested while one runs is coalesced into one more.
 */
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type AlertRule, type AlertRuleSync, RULE_ID_LABEL } from "@svc/contract";
import { stringify } from "yaml";

/** Name of the file the console owns in the rule directory. */
export const RULE_FILE_NAME = "svc-console-alerts.yml";
/** Name of the rule group in it. */
export const RULE_GROUP_NAME = "svc-console";

/** One Prometheus alerting rule as a rule file or a PrometheusRule spec holds it. */
export interface PromAlertingRule {
  alert: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
  annotations?: Record<string, string>;
}

/** The rule group of `rules` (disabled rules left out), ordered by alert name so the text is stable. */
export function ruleGroup(rules: readonly AlertRule[]): { name: string; rules: PromAlertingRule[] } {
  const enabled = rules.filter((r) => r.enabled).sort((a, b) => (a.alertName < b.alertName ? -1 : 1));
  return {
    name: RULE_GROUP_NAME,
    rules: enabled.map((r) => ({
      alert: r.alertName,
      expr: r.expr,
      ...(r.forSeconds > 0 ? { for: `${r.forSeconds}s` } : {}),
      labels: { ...r.labels, [RULE_ID_LABEL]: r.id },
      ...(Object.keys(r.annotations).length > 0 ? { annotations: r.annotations } : {}),
    })),
  };
}

/** The rule file text of `rules` (disabled rules left out), ordered by alert name so the text is stable. */
export function renderRuleFile(rules: readonly AlertRule[]): string {
  const doc = { groups: [ruleGroup(rules)] };
  return `# written by svc console: edit rules through /api/v1/alert-rules, not here\n${stringify(doc, { lineWidth: 0 })}`;
}

/** Options of RuleFileSync. */
export interface RuleFileSyncOptions {
  /** "" = not configured: nothing written, state `unconfigured` */
  directory: string;
  /** Prometheus base URL without trailing slash; "" = write the file, reload nothing */
  prometheusUrl: string;
  /** the rules to write (read fresh at every sync) */
  rules: () => Promise<AlertRule[]>;
  now: () => number;
  /** reload request timeout */
  timeoutMs?: number;
  onError?: (err: string) => void;
}

/** Writes the rule file and reloads Prometheus; remembers how the last attempt went. */
export class RuleFileSync {
  private state: AlertRuleSync;
  private running: Promise<void> | undefined;
  private again = false;

  constructor(private readonly opts: RuleFileSyncOptions) {
    this.state = { state: opts.directory === "" ? "unconfigured" : "pending", at: null, error: null };
  }

  /** How the last attempt went. */
  status(): AlertRuleSync {
    return { ...this.state };
  }

  /** Writes and reloads; resolves when a sync that started after this call has finished (never rejects). */
  sync(): Promise<void> {
    if (this.opts.directory === "") return Promise.resolve();
    if (this.running) {
      this.again = true; // the running loop goes round once more
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.once();
      } while (this.again);
      this.running = undefined;
    })();
    return this.running;
  }

  private async once(): Promise<void> {
    const at = new Date(this.opts.now()).toISOString();
    try {
      const text = renderRuleFile(await this.opts.rules());
      await mkdir(this.opts.directory, { recursive: true });
      const file = join(this.opts.directory, RULE_FILE_NAME);
      const tmp = `${file}.${process.pid}.tmp`;
      await writeFile(tmp, text);
      await rename(tmp, file);
      if (this.opts.prometheusUrl !== "") await this.reload();
      this.state = { state: "synced", at, error: null };
    } catch (e) {
      const error = e instanceof Error ? e.message : String(e);
      this.state = { state: "failed", at, error };
      this.opts.onError?.(error);
    }
  }

  private async reload(): Promise<void> {
    let res: Response;
    try {
      res = await fetch(`${this.opts.prometheusUrl}/-/reload`, {
        method: "POST",
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 10_000),
        redirect: "manual",
      });
    } catch (e) {
      throw new Error(`prometheus reload: ${e instanceof Error ? e.message : String(e)}`);
    }
    const body = (await res.text()).trim().slice(0, 500);
    if (!res.ok) throw new Error(`prometheus reload answered ${res.status}: ${body}`);
  }
}
