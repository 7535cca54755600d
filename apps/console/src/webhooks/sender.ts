/**
 * Webhook delivery (spec §3.5, §6.3 points 1-3): one POST per attempt with `Content-Type: application/json` and
 * `X-Svc-Signature: sha256=<hex>` over the exact body bytes; the body and the signature are made once per delivery,
 * so every attempt sends the same bytes. Up to 3 attempts: at once, about 30 s after the first failure, about 5 min
 * after the second, each delay with +/-20 % jitter; 10 s timeout per attempt; redirects are not followed (a 3xx is a
 * failure, `failed: HTTP 3xx`, retried like any non-2xx). A send test is one attempt. Retries wait on the injected
 * scheduler (virtual time in tests); a restart loses remaining attempts (nothing is persisted).
 */
import type { Scheduler } from "../events/ingester.ts";
import { SIGNATURE_HEADER, signBody } from "./sign.ts";

/** Delays before attempts 2 and 3. */
export const RETRY_DELAYS_MS: readonly number[] = [30_000, 300_000];
/** Jitter of each delay (+/- this share). */
export const RETRY_JITTER = 0.2;
/** Timeout of one attempt. */
export const ATTEMPT_TIMEOUT_MS = 10_000;

/** Where a delivery goes. */
export interface DeliveryTarget {
  endpointId: string;
  url: string;
  /** the signing secret (decrypted) */
  secret: string;
}

/** How one attempt went. `error` is `failed: HTTP <status>`, `timeout` or `unreachable: <why>`. */
export interface AttemptOutcome {
  ok: boolean;
  attempt: number;
  /** epoch ms the attempt started */
  at: number;
  status: number | null;
  error: string | null;
}

/** Options of WebhookSender. */
export interface WebhookSenderOptions {
  scheduler: Scheduler;
  /** every attempt's outcome; `final` when no attempt follows */
  onAttempt?: (target: DeliveryTarget, outcome: AttemptOutcome, final: boolean) => void | Promise<void>;
  /** random in [0, 1) for the jitter (tests fix it) */
  random?: () => number;
  delaysMs?: readonly number[];
  timeoutMs?: number;
}

/** Sends signed deliveries with retries. */
export class WebhookSender {
  /** waiting retries, and how to settle their delivery when stop() drops them */
  private readonly pending = new Map<{ cancel(): void }, () => void>();
  private stopped = false;

  constructor(private readonly opts: WebhookSenderOptions) {}

  /**
   * Delivers `body` with up to 3 attempts; resolves with the last attempt's outcome (after the retries, which wait
   * on the scheduler), or undefined when stop() dropped the remaining attempts.
   */
  deliver(target: DeliveryTarget, body: Uint8Array): Promise<AttemptOutcome | undefined> {
    const signature = signBody(target.secret, body);
    const delays = this.opts.delaysMs ?? RETRY_DELAYS_MS;
    const attempts = delays.length + 1;
    return new Promise((resolve) => {
      const run = async (n: number): Promise<void> => {
        if (this.stopped) return resolve(undefined);
        const outcome = await this.attempt(target, body, signature, n);
        const final = outcome.ok || n >= attempts;
        await this.report(target, outcome, final);
        if (final) return resolve(outcome);
        if (this.stopped) return resolve(undefined);
        const base = delays[n - 1] ?? 0;
        const jitter = 1 + ((this.opts.random ?? Math.random)() * 2 - 1) * RETRY_JITTER;
        const at = this.opts.scheduler.now() + Math.round(base * jitter);
        const handle = this.opts.scheduler.schedule(at, () => {
          this.pending.delete(handle);
          void run(n + 1);
        });
        this.pending.set(handle, () => resolve(undefined));
      };
      void run(1);
    });
  }

  /** One attempt only (send test). */
  async sendOnce(target: DeliveryTarget, body: Uint8Array): Promise<AttemptOutcome> {
    const outcome = await this.attempt(target, body, signBody(target.secret, body), 1);
    await this.report(target, outcome, true);
    return outcome;
  }

  /** Drops every waiting retry (a restart loses remaining attempts). */
  stop(): void {
    this.stopped = true;
    for (const [h, settle] of this.pending) {
      h.cancel();
      settle();
    }
    this.pending.clear();
  }

  private async report(target: DeliveryTarget, outcome: AttemptOutcome, final: boolean): Promise<void> {
    try {
      await this.opts.onAttempt?.(target, outcome, final);
    } catch {
      // recording an outcome must not stop the delivery
    }
  }

  private async attempt(
    target: DeliveryTarget,
    body: Uint8Array,
    signature: string,
    attempt: number,
  ): Promise<AttemptOutcome> {
    const at = this.opts.scheduler.now();
    try {
      const res = await fetch(target.url, {
        method: "POST",
        headers: { "content-type": "application/json", [SIGNATURE_HEADER]: signature },
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? ATTEMPT_TIMEOUT_MS),
      });
      await res.body?.cancel().catch(() => {});
      const ok = res.status >= 200 && res.status < 300;
      return { ok, attempt, at, status: res.status, error: ok ? null : `failed: HTTP ${res.status}` };
    } catch (e) {
      const timeout = e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError");
      const why = e instanceof Error ? ((e.cause as Error | undefined)?.message ?? e.message) : String(e);
      return { ok: false, attempt, at, status: null, error: timeout ? "timeout" : `unreachable: ${why}` };
    }
  }
}
