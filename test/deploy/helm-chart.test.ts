/**
 * The Helm chart (deploy/helm/svc), with the helm v3.17 binary of a dev dependency (test/helpers/kube-tools.ts):
 * `helm lint` is clean for every values file; `helm template` renders the defaults and each ci/*-values.yaml
 * (sparse 5,000 nodes, console with OIDC + Redis + 3 replicas, external gateway); every rendered object validates
 * against the Kubernetes schemas of kubernetes-models (and prometheus-operator's); pods meet the Pod Security
 * Standard "restricted" (the agent on the host network excepted); and the configuration rendered for each binary
 * loads, without a warning, through that binary's own loader, with every file it names mounted in its container.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parseConsoleConfig } from "@svc/console";
import { parseConfig } from "@svc/core";
import { parse, parseAllDocuments } from "yaml";
import { kubeTools } from "../helpers/kube-tools.ts";

const ROOT = join(import.meta.dirname, "../..");
const CHART = join(ROOT, "deploy/helm/svc");
const NAMESPACE = "svc-test";
const { helm } = kubeTools();

/** A rendered Kubernetes object (only what the checks read is typed). */
interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  data?: Record<string, string>;
  spec?: Record<string, unknown>;
}

interface Container {
  name: string;
  args?: string[];
  securityContext?: Record<string, unknown>;
  volumeMounts?: { name: string; mountPath: string }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}

interface PodSpec {
  hostNetwork?: boolean;
  securityContext?: Record<string, unknown> & { sysctls?: { name: string; value: string }[] };
  containers: Container[];
  volumes?: { name: string; configMap?: { name: string }; secret?: { secretName: string } }[];
}

const SCENARIOS: { name: string; files: string[] }[] = [
  { name: "defaults", files: [] },
  ...readdirSync(join(CHART, "ci"))
    .filter((f) => f.endsWith("-values.yaml"))
    .sort()
    .map((f) => ({ name: f.replace(/-values\.yaml$/, ""), files: [join(CHART, "ci", f)] })),
];

function helmRun(args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(helm, args, { encoding: "utf8", maxBuffer: 64 << 20 });
}

function render(files: string[], set: string[] = []): K8sObject[] {
  const args = ["template", "rel", CHART, "--namespace", NAMESPACE, "--kube-version", "1.30.0"];
  for (const f of files) args.push("-f", f);
  for (const s of set) args.push("--set", s);
  const out = execFileSync(helm, args, {
    encoding: "utf8",
    maxBuffer: 64 << 20,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return parseAllDocuments(out)
    .map((d) => d.toJSON() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}

type Model = new (o: unknown) => { validate(): void };

async function modelFor(apiVersion: string, kind: string): Promise<Model> {
  const mod = (
    apiVersion === "monitoring.coreos.com/v1"
      ? await import("@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1")
      : await import(`kubernetes-models/${apiVersion}`)
  ) as Record<string, Model | undefined>;
  const model = mod[kind];
  assert.ok(model, `no schema for ${apiVersion} ${kind}`);
  return model;
}

function podSpec(o: K8sObject): PodSpec | undefined {
  if (!["Deployment", "DaemonSet", "StatefulSet"].includes(o.kind)) return undefined;
  return (o.spec?.template as { spec: PodSpec } | undefined)?.spec;
}

/** The Pod Security Standard "restricted" fields (pod and container level). */
function assertRestricted(o: K8sObject, pod: PodSpec): void {
  const where = `${o.kind}/${o.metadata.name}`;
  assert.equal(pod.securityContext?.runAsNonRoot, true, `${where}: runAsNonRoot`);
  assert.deepEqual(pod.securityContext?.seccompProfile, { type: "RuntimeDefault" }, `${where}: seccomp`);
  for (const s of pod.securityContext?.sysctls ?? []) {
    assert.equal(s.name, "net.ipv4.ping_group_range", `${where}: only the safe ping_group_range sysctl`);
  }
  for (const c of pod.containers) {
    const sc = c.securityContext ?? {};
    assert.equal(sc.allowPrivilegeEscalation, false, `${where}/${c.name}: allowPrivilegeEscalation`);
    assert.equal(sc.readOnlyRootFilesystem, true, `${where}/${c.name}: readOnlyRootFilesystem`);
    assert.equal(sc.runAsUser, 65532, `${where}/${c.name}: uid 65532`);
    assert.deepEqual(sc.capabilities, { drop: ["ALL"] }, `${where}/${c.name}: no capabilities`);
    assert.ok(
      c.resources?.requests?.memory && c.resources.limits?.memory,
      `${where}/${c.name}: memory sized`,
    );
  }
}

/** Every `...File` value of a loaded configuration, with its key path. */
function fileKeys(v: unknown, path = ""): [string, string][] {
  if (typeof v !== "object" || v === null) return [];
  return Object.entries(v).flatMap(([k, x]) => {
    const p = path ? `${path}.${k}` : k;
    if (typeof x === "string" && k.endsWith("File") && x !== "") return [[p, x] as [string, string]];
    return fileKeys(x, p);
  });
}

/** What a rendered configuration says that the pod spec must agree with. */
interface Loaded {
  files: [string, string][];
  /** container port name -> port the binary listens on */
  ports: Record<string, number>;
}

/** Loads the configuration a workload's ConfigMap holds with the binary's own loader. */
function loadRendered(binary: "agent" | "controller" | "console", text: string): Loaded {
  if (binary === "console") {
    const { config, warnings } = parseConsoleConfig(text, {}, "rendered console config");
    assert.deepEqual(warnings, [], "console config loads without warnings");
    return { files: fileKeys(config), ports: { http: config.httpPort, metrics: config.metricsPort } };
  }
  const { config, warnings } = parseConfig(text, {}, "node-1", `rendered ${binary} config`);
  assert.deepEqual(warnings, [], `${binary} config loads without warnings`);
  const ports: Record<string, number> = {
    http: config.httpPort,
    metrics: config.metricsPort,
    grpc: config.grpcPort,
  };
  if (binary === "agent") ports.echo = config.grpcPort;
  if (binary === "controller" && config.controller.externalGateway.enabled)
    ports.gateway = config.controller.externalGateway.port;
  return { files: fileKeys(config), ports };
}

test("helm lint is clean for the defaults and every ci values file", () => {
  for (const s of SCENARIOS) {
    const r = helmRun(["lint", CHART, "--strict", ...s.files.flatMap((f) => ["-f", f])]);
    assert.equal(r.status, 0, `${s.name}:\n${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
    assert.doesNotMatch(r.stdout, /\[(ERROR|WARNING)\]/, r.stdout);
  }
});

for (const s of SCENARIOS) {
  test(`helm template (${s.name}): objects valid, pods restricted, configs load in their binaries`, async () => {
    const objects = render(s.files);
    assert.ok(objects.length > 0);
    for (const o of objects) {
      const Model = await modelFor(o.apiVersion, o.kind);
      assert.doesNotThrow(() => new Model(o).validate(), `${o.kind}/${o.metadata.name} against its schema`);
    }
    const byName = new Map(objects.map((o) => [`${o.kind}/${o.metadata.name}`, o]));
    let workloads = 0;
    for (const o of objects) {
      const pod = podSpec(o);
      if (!pod) continue;
      workloads++;
      const binary = o.metadata.name.replace(/^rel-svc-/, "") as "agent" | "controller" | "console";
      assert.ok(["agent", "controller", "console"].includes(binary), o.metadata.name);
      if (!(binary === "agent" && pod.hostNetwork)) assertRestricted(o, pod);
      else
        assert.deepEqual(
          pod.securityContext?.sysctls,
          undefined,
          "no per-pod net sysctl on the host network",
        );
      const [container] = pod.containers;
      assert.ok(container);
      // the config file the container reads comes from this release's ConfigMap for this binary
      const configArg = container.args?.[container.args.indexOf("--config") + 1];
      assert.equal(configArg, "/etc/svc/config.yaml");
      const cmVolume = pod.volumes?.find((v) => v.configMap);
      const cm = byName.get(`ConfigMap/${cmVolume?.configMap?.name}`);
      const text = cm?.data?.["config.yaml"];
      assert.ok(text, `${o.metadata.name}: rendered config.yaml`);
      const loaded = loadRendered(binary, text);
      // the pod's named ports are the ones the binary listens on, and it declares no other
      const declared = Object.fromEntries(
        ((container as { ports?: { name: string; containerPort: number }[] }).ports ?? []).map((p) => [
          p.name,
          p.containerPort,
        ]),
      );
      assert.deepEqual(declared, loaded.ports, `${binary}: container ports vs the configuration`);
      // every file the loaded config names lies under one of the container's mounts, from a volume that exists
      for (const [key, file] of loaded.files) {
        const mount = container.volumeMounts?.find((m) => file.startsWith(`${m.mountPath}/`));
        assert.ok(mount, `${binary}: ${key} = ${file} is not under a mounted volume`);
        assert.ok(pod.volumes?.some((v) => v.name === mount.name));
      }
    }
    assert.ok(workloads >= 2, "agent and controller at least");
  });
}

test("the agent has no added capability and gets ping_group_range (icmp without CAP_NET_RAW)", () => {
  const ds = render([]).find((o) => o.kind === "DaemonSet");
  assert.ok(ds);
  const pod = podSpec(ds);
  assert.deepEqual(pod?.securityContext?.sysctls, [
    { name: "net.ipv4.ping_group_range", value: "0 2147483647" },
  ]);
  assert.deepEqual(pod?.containers[0]?.securityContext?.capabilities, { drop: ["ALL"] });
  const env = (pod?.containers[0] as { env?: { name: string }[] } | undefined)?.env?.map((e) => e.name) ?? [];
  for (const name of ["SVC_POD_IP", "SVC_POD_NAME", "SVC_NODE_NAME"]) assert.ok(env.includes(name), name);
});

test("the controller's RBAC: nodes and token reviews cluster-wide; leases, pods and events in its namespace", () => {
  const objects = render([]);
  const cr = objects.find((o) => o.kind === "ClusterRole" && o.metadata.name === "rel-svc-controller") as
    | (K8sObject & { rules: { resources: string[]; verbs: string[] }[] })
    | undefined;
  assert.deepEqual(
    cr?.rules.map((r) => [r.resources, r.verbs]),
    [
      [["nodes"], ["get", "list", "watch"]],
      [["tokenreviews"], ["create"]],
    ],
  );
  const role = objects.find((o) => o.kind === "Role") as
    | (K8sObject & { rules: { resources: string[]; verbs: string[] }[] })
    | undefined;
  assert.deepEqual(role?.rules.map((r) => r.resources[0]).sort(), ["events", "leases", "pods"]);
});

test("two controller replicas (issue 33): ready only while leading, spread over nodes, a PodDisruptionBudget", () => {
  const objects = render([]);
  const deploy = objects.find((o) => o.kind === "Deployment" && o.metadata.name === "rel-svc-controller") as
    | (K8sObject & { spec: { replicas: number; strategy: { type: string } } })
    | undefined;
  assert.equal(deploy?.spec.replicas, 2);
  assert.equal(deploy?.spec.strategy.type, "RollingUpdate");
  const pod = deploy && podSpec(deploy);
  const probe = (pod?.containers[0] as { readinessProbe?: { httpGet?: { path?: string } } } | undefined)
    ?.readinessProbe;
  assert.equal(probe?.httpGet?.path, "/readyz/leader");
  const anti = (
    pod as
      | { affinity?: { podAntiAffinity?: { preferredDuringSchedulingIgnoredDuringExecution?: unknown[] } } }
      | undefined
  )?.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution;
  assert.equal(anti?.length, 1);
  const pdb = objects.find((o) => o.kind === "PodDisruptionBudget") as
    | (K8sObject & { spec: { maxUnavailable: number; selector: { matchLabels: Record<string, string> } } })
    | undefined;
  assert.equal(pdb?.spec.maxUnavailable, 1);
  assert.equal(pdb?.spec.selector.matchLabels["app.kubernetes.io/component"], "controller");
  // one replica: no budget (it would block every drain)
  assert.equal(
    render([], ["controller.replicas=1"]).filter((o) => o.kind === "PodDisruptionBudget").length,
    0,
  );
});

test("the agent's identity: a projected token for the controller's audience, named in both configs", () => {
  const objects = render([]);
  const ds = objects.find((o) => o.kind === "DaemonSet");
  assert.ok(ds);
  const pod = podSpec(ds) as
    | {
        automountServiceAccountToken?: boolean;
        volumes?: {
          name: string;
          projected?: {
            sources: {
              serviceAccountToken?: { audience: string; expirationSeconds: number; path: string };
            }[];
          };
        }[];
      }
    | undefined;
  assert.equal(pod?.automountServiceAccountToken, false, "no API token in the agent");
  const sat = pod?.volumes?.find((v) => v.name === "identity")?.projected?.sources[0]?.serviceAccountToken;
  assert.deepEqual(sat, { path: "token", audience: "svc-controller", expirationSeconds: 600 });
  const agentCm = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name === "rel-svc-agent");
  const agent = parseConfig(agentCm?.data?.["config.yaml"] ?? "", {}, "node-1", "agent").config;
  assert.equal(agent.agent.identityTokenFile, "/var/run/svc/identity/token");
  const ctlCm = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name === "rel-svc-controller");
  const ctl = parseConfig(ctlCm?.data?.["config.yaml"] ?? "", {}, "node-1", "controller").config;
  assert.deepEqual(ctl.controller.agentIdentity, {
    serviceAccount: "rel-svc-agent",
    audience: "svc-controller",
  });
  const sa = objects.find((o) => o.kind === "ServiceAccount" && o.metadata.name === "rel-svc-agent");
  assert.ok(sa, "the agents' ServiceAccount is the one the controller expects");
});

test("the PrometheusRule is deploy/prometheus/svc-recording-rules.yml", () => {
  const rule = render([join(CHART, "ci/console-oidc-redis-values.yaml")]).find(
    (o) => o.kind === "PrometheusRule",
  );
  assert.ok(rule);
  const file = parse(readFileSync(join(ROOT, "deploy/prometheus/svc-recording-rules.yml"), "utf8")) as {
    groups: unknown[];
  };
  assert.deepEqual(rule.spec?.groups, file.groups);
});

test("console alerting: the webhook key and the rule directory are mounted where the config names them; the PrometheusRule Role", () => {
  const objects = render([join(CHART, "ci/console-oidc-redis-values.yaml")]);
  const cm = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name === "rel-svc-console");
  const { config } = parseConsoleConfig(cm?.data?.["config.yaml"] ?? "", {}, "rendered console config");
  assert.equal(config.webhooks.encryptionKeyFile, "/var/run/svc/webhooks/key");
  assert.equal(config.alerts.ruleDirectory, "/var/lib/svc/alert-rules");
  assert.deepEqual(config.alerts.prometheusRuleLabels, { release: "prometheus" });
  assert.equal(config.alerts.evaluatorUrl, "http://vmalert.monitoring.svc:8880");
  assert.equal(config.kubernetesContext.enabled, true);
  const deploy = objects.find((o) => o.kind === "Deployment" && o.metadata.name === "rel-svc-console");
  assert.ok(deploy);
  const pod = podSpec(deploy);
  assert.ok(pod);
  const volumes = (pod.volumes ?? []) as {
    name: string;
    secret?: { secretName: string };
    persistentVolumeClaim?: { claimName: string };
  }[];
  const c = pod.containers[0] as Container & {
    env?: { name: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
  };
  const mountOf = (path: string) =>
    c.volumeMounts?.find((m) => path === m.mountPath || path.startsWith(`${m.mountPath}/`));
  // the key file comes from console.webhooks.existingSecret (spec §6.3 point 8)
  const keyMount = mountOf(config.webhooks.encryptionKeyFile);
  assert.equal(volumes.find((v) => v.name === keyMount?.name)?.secret?.secretName, "svc-console-webhooks");
  // the rule directory is the claim Prometheus shares, writable
  const ruleMount = mountOf(config.alerts.ruleDirectory) as { name: string; readOnly?: boolean } | undefined;
  assert.equal(
    volumes.find((v) => v.name === ruleMount?.name)?.persistentVolumeClaim?.claimName,
    "prometheus-rules",
  );
  assert.notEqual(ruleMount?.readOnly, true);
  // the PrometheusRule's namespace, and the Role that lets the console write it there
  assert.deepEqual(c.env?.find((e) => e.name === "SVC_POD_NAMESPACE")?.valueFrom?.fieldRef, {
    fieldPath: "metadata.namespace",
  });
  const role = objects.find((o) => o.kind === "Role" && o.metadata.name === "rel-svc-console-alerts") as
    | (K8sObject & {
        rules: { apiGroups: string[]; resources: string[]; resourceNames?: string[]; verbs: string[] }[];
      })
    | undefined;
  assert.deepEqual(role?.rules, [
    {
      apiGroups: ["monitoring.coreos.com"],
      resources: ["prometheusrules"],
      resourceNames: ["svc-console-alerts"],
      verbs: ["get", "update"],
    },
    { apiGroups: ["monitoring.coreos.com"], resources: ["prometheusrules"], verbs: ["create"] },
  ]);
  const binding = objects.find(
    (o) => o.kind === "RoleBinding" && o.metadata.name === "rel-svc-console-alerts",
  ) as (K8sObject & { subjects: { name: string; namespace: string }[] }) | undefined;
  assert.deepEqual(
    binding?.subjects.map((x) => [x.name, x.namespace]),
    [["rel-svc-console", NAMESPACE]],
  );
  // without the values: no key file, no rule directory, no Role
  const plain = render([], ["console.enabled=true"]);
  const plainCm = plain.find((o) => o.kind === "ConfigMap" && o.metadata.name === "rel-svc-console");
  const loaded = parseConsoleConfig(plainCm?.data?.["config.yaml"] ?? "", {}, "rendered").config;
  assert.equal(loaded.webhooks.encryptionKeyFile, "");
  assert.equal(loaded.alerts.ruleDirectory, "");
  assert.ok(!plain.some((o) => o.kind === "Role" && o.metadata.name === "rel-svc-console-alerts"));
});

test("refusals: replicas > 1 without redis, a local/oidc console without a database, a gateway without secrets, a rule directory without its volume, the old webhook key name", () => {
  const refusals: [string[], RegExp][] = [
    [
      ["console.enabled=true", "console.replicas=3"],
      /console.replicas above 1 requires redis.existingSecret/,
    ],
    [
      ["console.enabled=true", "console.auth.mode=oidc"],
      /console.auth.mode oidc requires database.existingSecret/,
    ],
    [["controller.externalGateway.enabled=true"], /externalGateway.enabled needs .*tls.existingSecret/],
    [
      ["console.enabled=true", "console.alerts.ruleDirectory=/rules"],
      /console.alerts.ruleDirectory needs console.alerts.existingClaim/,
    ],
    [
      ["console.enabled=true", "console.alerts.ruleDirectory=rules", "console.alerts.existingClaim=c"],
      /console.alerts.ruleDirectory must be an absolute path/,
    ],
    [
      ["console.enabled=true", "console.webhooks.encryptionKey.existingSecret=old"],
      /console.webhooks.encryptionKey.existingSecret is now console.webhooks.existingSecret/,
    ],
  ];
  for (const [set, message] of refusals) {
    const r = helmRun(["template", "rel", CHART, ...set.flatMap((x) => ["--set", x])]);
    assert.notEqual(r.status, 0, set.join(" "));
    assert.match(r.stderr, message);
  }
});

test("a value the binary refuses fails here, not at the pod's start", () => {
  const objects = render([], ["checkers.udp.packets=0", "topology.mode=ring"]);
  const cm = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name === "rel-svc-controller");
  assert.throws(
    () => loadRendered("controller", cm?.data?.["config.yaml"] ?? "").files,
    (e: unknown) =>
      e instanceof Error &&
      /checkers\.udp\.packets/.test(String((e as { issues?: string[] }).issues)) &&
      /topology\.mode/.test(String((e as { issues?: string[] }).issues)),
  );
  const bad = render([], ["console.enabled=true", "console.websocket.maxConnections=-1"]).find(
    (o) => o.kind === "ConfigMap" && o.metadata.name === "rel-svc-console",
  );
  assert.throws(
    () => loadRendered("console", bad?.data?.["config.yaml"] ?? ""),
    /console\.websocket\.maxConnections/,
  );
});

test("the dashboards ConfigMap holds deploy/grafana/*.json as generated", () => {
  const cm = render([join(CHART, "ci/console-oidc-redis-values.yaml")]).find(
    (o) => o.kind === "ConfigMap" && o.metadata.name === "rel-svc-grafana-dashboards",
  );
  const dir = join(ROOT, "deploy/grafana");
  const files = readdirSync(dir).filter((f) => f.endsWith(".json"));
  assert.deepEqual(Object.keys(cm?.data ?? {}).sort(), files.sort());
  for (const f of files)
    assert.deepEqual(JSON.parse(cm?.data?.[f] ?? ""), JSON.parse(readFileSync(join(dir, f), "utf8")));
  assert.equal(
    (cm?.metadata as { labels?: Record<string, string> } | undefined)?.labels?.grafana_dashboard,
    "1",
  );
});

interface PolicyRule {
  ports: { port: string | number; protocol: string }[];
  from?: Record<string, unknown>[];
}

/** The controller's NetworkPolicy of a rendering, its ingress rules by port name, and the pods' labels. */
function controllerPolicy(objects: K8sObject[]) {
  const policy = objects.find((o) => o.kind === "NetworkPolicy" && o.metadata.name === "rel-svc-controller");
  const podLabels = (kind: string, name: string) =>
    (
      objects.find((o) => o.kind === kind && o.metadata.name === name)?.spec?.template as
        | { metadata: { labels: Record<string, string> } }
        | undefined
    )?.metadata.labels;
  const rules = new Map<string | number, PolicyRule>();
  for (const r of (policy?.spec?.ingress ?? []) as PolicyRule[]) {
    assert.equal(r.ports.length, 1, "one port per rule");
    const [p] = r.ports;
    assert.equal(p?.protocol, "TCP");
    rules.set(p?.port ?? "", r);
  }
  return {
    policy,
    rules,
    controller: podLabels("Deployment", "rel-svc-controller"),
    agent: podLabels("DaemonSet", "rel-svc-agent"),
    console: podLabels("Deployment", "rel-svc-console"),
  };
}

test("the controller's NetworkPolicy: gRPC from the agent (and console) pods, HTTP API from the console, metrics and the gateway open", () => {
  // defaults: no console, no gateway
  const d = controllerPolicy(render([]));
  assert.ok(d.policy, "on by default");
  assert.deepEqual(d.policy.spec?.podSelector, { matchLabels: d.controller }, "selects the controller pods");
  assert.deepEqual(d.policy.spec?.policyTypes, ["Ingress"]);
  assert.deepEqual([...d.rules.keys()].sort(), ["grpc", "metrics"]);
  assert.deepEqual(d.rules.get("grpc")?.from, [{ podSelector: { matchLabels: d.agent } }]);
  assert.equal(d.rules.get("metrics")?.from, undefined, "metrics from anywhere");
  assert.ok(
    d.agent?.["app.kubernetes.io/component"] === "agent" && d.agent["app.kubernetes.io/instance"] === "rel",
  );

  // console and gateway on: gRPC also from the console (events), HTTP API only from the console, gateway open
  const objects = render([
    join(CHART, "ci/console-oidc-redis-values.yaml"),
    join(CHART, "ci/external-gateway-values.yaml"),
  ]);
  const c = controllerPolicy(objects);
  assert.ok(c.console);
  assert.deepEqual([...c.rules.keys()].sort(), ["gateway", "grpc", "http", "metrics"]);
  assert.deepEqual(c.rules.get("grpc")?.from, [
    { podSelector: { matchLabels: c.agent } },
    { podSelector: { matchLabels: c.console } },
  ]);
  assert.deepEqual(c.rules.get("http")?.from, [{ podSelector: { matchLabels: c.console } }]);
  assert.equal(c.rules.get("gateway")?.from, undefined, "the gateway as its Service admits");
  // every port the policy names is a named port of the controller container
  const deployment = objects.find((o) => o.kind === "Deployment" && o.metadata.name === "rel-svc-controller");
  const container =
    deployment && (podSpec(deployment)?.containers[0] as { ports?: { name: string }[] } | undefined);
  const named = (container?.ports ?? []).map((p) => p.name);
  for (const port of c.rules.keys()) assert.ok(named.includes(String(port)), `${port} is a controller port`);

  // extra peers, and host-network agents admitted by the nodes' addresses
  const x = controllerPolicy(
    render(
      [],
      [
        "agent.hostNetwork=true",
        "controller.networkPolicy.nodeCIDRs={10.0.0.0/16}",
        "controller.networkPolicy.httpFrom[0].namespaceSelector.matchLabels.team=ops",
      ],
    ),
  );
  assert.deepEqual(x.rules.get("grpc")?.from, [
    { podSelector: { matchLabels: x.agent } },
    { ipBlock: { cidr: "10.0.0.0/16" } },
  ]);
  assert.deepEqual(x.rules.get("http")?.from, [{ namespaceSelector: { matchLabels: { team: "ops" } } }]);

  // host-network agents without the nodes' addresses: refused, since the pod selector cannot match them
  const r = helmRun(["template", "rel", CHART, "--set", "agent.hostNetwork=true"]);
  assert.notEqual(r.status, 0);
  assert.match(
    r.stderr,
    /agent.hostNetwork with controller.networkPolicy.enabled needs controller.networkPolicy.nodeCIDRs/,
  );

  // off: no policy
  for (const files of [[], [join(CHART, "ci/console-oidc-redis-values.yaml")]]) {
    const off = render(files, ["controller.networkPolicy.enabled=false", "agent.hostNetwork=true"]);
    assert.ok(!off.some((o) => o.kind === "NetworkPolicy"), "no NetworkPolicy when disabled");
  }
});
