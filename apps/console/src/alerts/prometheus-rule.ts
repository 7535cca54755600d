/**
 * The console's alert rules as a `PrometheusRule` object (monitoring.coreos.com/v1, issue 22 item 1) when
 * `kubernetesContext.enabled`: written through the Kubernetes API in the console's own namespace, read back and
 * replaced with its resourceVersion (optimistic concurrency: a 409 from a replica that wrote in between is retried
 * once on a fresh read), created when absent. The Prometheus Operator loads it into every Prometheus whose
 * `ruleSelector` matches its labels (`alerts.prometheusRuleLabels`) and reloads them itself: no /-/reload here.
 * The spec is the rule file's one group, so both places hold the same rules.
 */
import { existsSync, readFileSync } from "node:fs";
import { ApiException, CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import type { AlertRule, AlertRuleSync } from "@svc/contract";
import { ruleGroup } from "./rule-file.ts";
import { coalesce, type RuleSink } from "./rule-sync.ts";

/** Name of the object the console owns. */
export const PROMETHEUS_RULE_NAME = "svc-console-alerts";
const GROUP = "monitoring.coreos.com";
const VERSION = "v1";
const PLURAL = "prometheusrules";
/** Where Kubernetes mounts the pod's namespace with its service account. */
const NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

/** The console's namespace: SVC_POD_NAMESPACE, POD_NAMESPACE, the service account's namespace file, else `default`. */
export function consoleNamespace(env: NodeJS.ProcessEnv = process.env, file = NAMESPACE_FILE): string {
  const fromEnv = env.SVC_POD_NAMESPACE?.trim() || env.POD_NAMESPACE?.trim();
  if (fromEnv) return fromEnv;
  try {
    if (existsSync(file)) {
      const ns = readFileSync(file, "utf8").trim();
      if (ns !== "") return ns;
    }
  } catch {
    // unreadable: the default
  }
  return "default";
}

/** The PrometheusRule object holding `rules`. */
export function prometheusRuleObject(
  rules: readonly AlertRule[],
  namespace: string,
  labels: Readonly<Record<string, string>>,
) {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: "PrometheusRule",
    metadata: {
      name: PROMETHEUS_RULE_NAME,
      namespace,
      labels: { ...labels, "app.kubernetes.io/managed-by": "svc-console" },
    },
    spec: { groups: [ruleGroup(rules)] },
  };
}

/** Options of PrometheusRuleSync. */
export interface PrometheusRuleSyncOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  /** labels the Prometheus Operator's ruleSelector looks for */
  labels: Readonly<Record<string, string>>;
  rules: () => Promise<AlertRule[]>;
  now: () => number;
  onError?: (err: string) => void;
}

function status(e: unknown): number | undefined {
  return e instanceof ApiException ? e.code : undefined;
}

function describe(e: unknown): string {
  if (e instanceof ApiException) {
    const body = e.body as { message?: unknown } | string | undefined;
    const msg =
      typeof body === "object" && typeof body?.message === "string" ? body.message : String(body ?? "");
    return `kubernetes API answered ${e.code}${msg ? `: ${msg.slice(0, 300)}` : ""}`;
  }
  return e instanceof Error ? e.message : String(e);
}

/** Writes the PrometheusRule object; remembers how the last attempt went. */
export class PrometheusRuleSync implements RuleSink {
  private state: AlertRuleSync = { state: "pending", at: null, error: null };
  private readonly api: CustomObjectsApi;
  readonly sync: () => Promise<void>;

  constructor(private readonly opts: PrometheusRuleSyncOptions) {
    this.api = opts.kubeConfig.makeApiClient(CustomObjectsApi);
    this.sync = coalesce(() => this.once());
  }

  status(): AlertRuleSync {
    return { ...this.state };
  }

  private async once(): Promise<void> {
    const at = new Date(this.opts.now()).toISOString();
    try {
      const body = prometheusRuleObject(await this.opts.rules(), this.opts.namespace, this.opts.labels);
      try {
        await this.write(body);
      } catch (e) {
        if (status(e) !== 409) throw e;
        await this.write(body); // another replica wrote in between: once more on a fresh read
      }
      this.state = { state: "synced", at, error: null };
    } catch (e) {
      const error = `PrometheusRule ${this.opts.namespace}/${PROMETHEUS_RULE_NAME}: ${describe(e)}`;
      this.state = { state: "failed", at, error };
      this.opts.onError?.(error);
    }
  }

  private async write(body: ReturnType<typeof prometheusRuleObject>): Promise<void> {
    const where = { group: GROUP, version: VERSION, namespace: this.opts.namespace, plural: PLURAL };
    let current: { metadata?: { resourceVersion?: string } } | undefined;
    try {
      current = (await this.api.getNamespacedCustomObject({ ...where, name: PROMETHEUS_RULE_NAME })) as {
        metadata?: { resourceVersion?: string };
      };
    } catch (e) {
      if (status(e) !== 404) throw e;
    }
    if (!current) {
      await this.api.createNamespacedCustomObject({ ...where, body });
      return;
    }
    const resourceVersion = current.metadata?.resourceVersion;
    await this.api.replaceNamespacedCustomObject({
      ...where,
      name: PROMETHEUS_RULE_NAME,
      body: { ...body, metadata: { ...body.metadata, ...(resourceVersion ? { resourceVersion } : {}) } },
    });
  }
}
