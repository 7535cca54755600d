import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type EventObject, FakeEvents } from "./event-route.ts";
import { HANDLED, type Handled, json, notFound, readBody, sendStatus } from "./kube-http.ts";
import { type KubeObject, kubeStatus, type WatchEvent } from "./kube-objects.ts";
import { FakeLeases } from "./lease-route.ts";
import { FakePods } from "./pod-route.ts";
import { FakePrometheusRules } from "./prometheus-rule-route.ts";
import { FakeTokens, type TokenSpec } from "./token-review-route.ts";

const LEASES = /^\/apis\/coordination\.k8s\.io\/v1\/namespaces\/([^/]+)\/leases(?:\/([^/]+))?$/;
const NODES = /^\/api\/v1\/nodes(?:\/([^/]+))?$/;
const PODS = /^\/api\/v1\/namespaces\/([^/]+)\/pods(?:\/([^/]+))?$/;
const TOKEN_REVIEWS = /^\/apis\/authentication\.k8s\.io\/v1\/tokenreviews$/;
const EVENTS = /^\/api\/v1\/(?:namespaces\/([^/]+)\/)?events$/;
const PROMETHEUS_RULES =
  /^\/apis\/monitoring\.coreos\.com\/v1\/namespaces\/([^/]+)\/prometheusrules(?:\/([^/]+))?$/;

interface NodeEvent {
  rv: number;
  type: "ADDED" | "MODIFIED" | "DELETED";
  object: KubeObject;
}

interface OpenWatch {
  res: ServerResponse;
  timer?: NodeJS.Timeout;
}

/** Counts of what clients asked for, so tests can observe a relist or a rewatch. */
export interface FakeKubeApiCounters {
  nodeLists: number;
  nodeWatches: number;
  /** watches answered with 410 Gone (as an ERROR event or as an HTTP status) */
  gone: number;
  leaseGets: number;
  leaseCreates: number;
  leaseUpdates: number;
  /** creates refused 409 AlreadyExists and updates refused 409 Conflict */
  leaseConflicts: number;
  podLists: number;
  eventLists: number;
  eventWatches: number;
  /** PrometheusRule creates and accepted replaces */
  prometheusRuleWrites: number;
  /** PrometheusRule creates refused 409 AlreadyExists and replaces refused 409 Conflict */
  prometheusRuleConflicts: number;
}

/**
 * TEST HELPER, not a Kubernetes implementation: a small fake of the Kubernetes API server over plain HTTP, faithful
 * to the parts of the protocol svc uses (design.md §2, the one permitted substitute):
 *
 * - `GET /api/v1/nodes` lists Nodes (`metadata.resourceVersion` of the list is the current global version);
 *   `?watch=true&resourceVersion=N` streams newline-delimited ADDED/MODIFIED/DELETED events newer than N, then live
 *   ones; an absent, empty or `0` version starts with a synthetic ADDED per node; a version older than the compacted
 *   history answers 410 Gone, by default as a real API server does (HTTP 200 with one ERROR event carrying a 410
 *   `Expired` Status, then end of stream), or as an HTTP 410 status with `goneAs: "status"`. `timeoutSeconds` ends
 *   the stream. No bookmarks.
 * - `coordination.k8s.io/v1` Leases in any namespace: GET (404 NotFound), POST (409 AlreadyExists), PUT with
 *   optimistic concurrency (`metadata.resourceVersion` must equal the stored one, else 409 Conflict; missing, 422),
 *   DELETE.
 * - `GET /api/v1/namespaces/{ns}/pods` lists Pods, with `fieldSelector` on metadata.name, spec.nodeName,
 *   and `GET .../pods/{name}` reads one (404 NotFound when absent);
 *   status.podIP and status.phase (equality terms joined by commas). Read only; tests set pods with setPod.
 * - core/v1 Events (event-route.ts): list and watch, all namespaces or one; tests write them with addEvent /
 *   updateEvent / deleteEvent.
 * - monitoring.coreos.com/v1 PrometheusRules (prometheus-rule-route.ts): namespaced list, GET, POST, PUT with
 *   optimistic concurrency, DELETE; tests read them with prometheusRule and write as another client with
 *   putPrometheusRule.
 * - `POST /apis/authentication.k8s.io/v1/tokenreviews` (token-review-route.ts) reviews tokens made by issueToken
 *   like the real server: expired, wrong-audience, forged and deleted-pod tokens are refused in `status.error`.
 * - Every write (node, lease or event) bumps one global resourceVersion.
 *
 * Tests drive the Node inventory with addNode / updateNode / setNodeReady / deleteNode, can compact history
 * (compact), hold new watch requests (pauseWatches / resumeWatches), drop open watches (closeWatches) and make
 * the whole server answer 503 (setUnavailable).
 */
export class FakeKubeApi {
  readonly counters: FakeKubeApiCounters = {
    nodeLists: 0,
    nodeWatches: 0,
    gone: 0,
    leaseGets: 0,
    leaseCreates: 0,
    leaseUpdates: 0,
    leaseConflicts: 0,
    podLists: 0,
    eventLists: 0,
    eventWatches: 0,
    prometheusRuleWrites: 0,
    prometheusRuleConflicts: 0,
  };
  readonly #pods = new FakePods();
  readonly #tokens = new FakeTokens({
    pod: (ns, name) => this.#pods.get(ns, name),
    node: (name) => this.#nodes.get(name),
    now: () => this.#clock(),
  });
  #clock: () => number = Date.now;
  readonly #server: Server;
  readonly #nodes = new Map<string, KubeObject>();
  readonly #leases = new FakeLeases({
    counters: this.counters,
    stamp: (obj, old) => this.#stamp(obj, old),
    version: () => this.#rv,
    bump: () => {
      this.#rv++;
    },
  });
  readonly #events = new FakeEvents({
    counters: this.counters,
    stamp: (obj, old) => this.#stamp(obj, old) as EventObject,
    version: () => this.#rv,
    bump: () => ++this.#rv,
  });
  readonly #prometheusRules = new FakePrometheusRules({
    counters: this.counters,
    stamp: (obj, old) => this.#stamp(obj, old),
    version: () => this.#rv,
    bump: () => {
      this.#rv++;
    },
  });
  readonly #history: NodeEvent[] = [];
  readonly #watches = new Set<OpenWatch>();
  readonly #held: (() => void)[] = [];
  readonly #goneAs: "event" | "status";
  #rv = 1;
  #compactedRv = 0;
  #paused = false;
  #unavailable = false;

  constructor(opts: { goneAs?: "event" | "status" } = {}) {
    this.#goneAs = opts.goneAs ?? "event";
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) sendStatus(res, kubeStatus(500, "InternalError", String(err)));
      });
    });
  }

  /** Binds 127.0.0.1 on a free port; resolves with the base URL (`http://127.0.0.1:PORT`). */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    return this.url;
  }

  get url(): string {
    const addr = this.#server.address() as AddressInfo | null;
    return `http://127.0.0.1:${addr?.port ?? 0}`;
  }

  /** Ends every watch, releases held requests and closes the listener. */
  async stop(): Promise<void> {
    this.closeWatches();
    this.resumeWatches();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** The current global resourceVersion. */
  get resourceVersion(): number {
    return this.#rv;
  }

  /** Creates a Node (throws if it exists); resolves with the stored copy. */
  addNode(node: KubeObject): KubeObject {
    const name = node.metadata.name;
    if (this.#nodes.has(name)) throw new Error(`node ${name} exists`);
    const stored = this.#stamp(structuredClone(node), undefined);
    this.#nodes.set(name, stored);
    this.#emit("ADDED", stored);
    return stored;
  }

  /** Replaces a Node with `mutate(copy)` (a MODIFIED event). */
  updateNode(name: string, mutate: (n: KubeObject) => void): KubeObject {
    const old = this.#nodes.get(name);
    if (!old) throw new Error(`no node ${name}`);
    const next = structuredClone(old);
    mutate(next);
    const stored = this.#stamp(next, old);
    this.#nodes.set(name, stored);
    this.#emit("MODIFIED", stored);
    return stored;
  }

  /** Sets the status of the node's Ready condition. */
  setNodeReady(name: string, ready: boolean): KubeObject {
    return this.updateNode(name, (n) => {
      const conds = (n.status?.conditions ?? []) as { type: string; status: string }[];
      const ready_ = conds.find((c) => c.type === "Ready");
      if (ready_) ready_.status = ready ? "True" : "False";
      else conds.push({ type: "Ready", status: ready ? "True" : "False" });
      n.status = { ...n.status, conditions: conds };
    });
  }

  /** Deletes a Node (a DELETED event carrying its last state at a new resourceVersion). */
  deleteNode(name: string): void {
    const old = this.#nodes.get(name);
    if (!old) throw new Error(`no node ${name}`);
    this.#nodes.delete(name);
    const gone = structuredClone(old);
    gone.metadata.resourceVersion = String(++this.#rv);
    this.#emit("DELETED", gone);
  }

  /** Creates a core/v1 Event (see eventObject); resolves with the stored copy. */
  addEvent(ev: EventObject): EventObject {
    return this.#events.add(ev);
  }

  /** Replaces an Event with `mutate(copy)` (a MODIFIED event). */
  updateEvent(namespace: string, name: string, mutate: (e: EventObject) => void): EventObject {
    return this.#events.update(namespace, name, mutate);
  }

  /** Deletes an Event (as the API server does when its TTL passes). */
  deleteEvent(namespace: string, name: string): void {
    this.#events.delete(namespace, name);
  }

  /** Creates or replaces a Pod (see podObject). */
  setPod(pod: KubeObject): void {
    this.#pods.set(pod);
  }

  /**
   * A projected ServiceAccount token for a pod (signed by this fake; see token-review-route.ts), as the kubelet
   * would write into the pod's volume.
   */
  issueToken(spec: TokenSpec): string {
    return this.#tokens.issue(spec);
  }

  /** TokenReviews answered so far. */
  get tokenReviews(): number {
    return this.#tokens.reviews;
  }

  /** The clock tokens are issued and judged by (ms since epoch); default Date.now. */
  setClock(now: () => number): void {
    this.#clock = now;
  }

  /** Deletes a Pod. */
  deletePod(namespace: string, name: string): void {
    this.#pods.delete(namespace, name);
  }

  /** The stored Nodes. */
  nodes(): KubeObject[] {
    return [...this.#nodes.values()].map((n) => structuredClone(n));
  }

  /** The stored Lease, if any. */
  lease(namespace: string, name: string): KubeObject | undefined {
    return this.#leases.get(namespace, name);
  }

  /** The stored PrometheusRule, if any. */
  prometheusRule(namespace: string, name: string): KubeObject | undefined {
    return this.#prometheusRules.get(namespace, name);
  }

  /** Writes a PrometheusRule as another client would (a new resourceVersion). */
  putPrometheusRule(obj: KubeObject): KubeObject {
    return this.#prometheusRules.put(obj);
  }

  /** Forgets the event history: a watch from any version older than the current one gets 410 Gone. */
  compact(): void {
    this.#compactedRv = this.#rv;
    this.#history.length = 0;
    this.#events.compact();
  }

  /** Holds new node watch requests unanswered until resumeWatches(). */
  pauseWatches(): void {
    this.#paused = true;
  }

  /** Answers the held watch requests (with the state as it is now) and stops holding. */
  resumeWatches(): void {
    this.#paused = false;
    for (const run of this.#held.splice(0)) run();
  }

  /** Ends every open watch stream (clients see a normal end of stream). */
  closeWatches(): void {
    for (const w of this.#watches) this.#endWatch(w);
    this.#events.closeWatches();
  }

  /** While true, every request answers 503 ServiceUnavailable and open watches are ended. */
  setUnavailable(unavailable: boolean): void {
    this.#unavailable = unavailable;
    if (unavailable) this.closeWatches();
  }

  #stamp(obj: KubeObject, old: KubeObject | undefined): KubeObject {
    obj.metadata.resourceVersion = String(++this.#rv);
    obj.metadata.uid = old?.metadata.uid ?? randomUUID();
    obj.metadata.creationTimestamp =
      old?.metadata.creationTimestamp ?? new Date().toISOString().replace(/\.\d+Z$/, "Z");
    return obj;
  }

  #emit(type: NodeEvent["type"], object: KubeObject): void {
    const ev: NodeEvent = { rv: Number(object.metadata.resourceVersion), type, object };
    this.#history.push(ev);
    for (const w of this.#watches) this.#send(w, { type, object });
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<Handled> {
    const url = new URL(req.url ?? "/", "http://fake");
    const body = await readBody(req);
    if (this.#unavailable) {
      return sendStatus(res, kubeStatus(503, "ServiceUnavailable", "the fake API server is unavailable"));
    }
    const nodes = NODES.exec(url.pathname);
    if (nodes) {
      if (req.method !== "GET") return sendStatus(res, kubeStatus(405, "MethodNotAllowed", "read only"));
      if (nodes[1] !== undefined) {
        const n = this.#nodes.get(decodeURIComponent(nodes[1]));
        if (!n) return sendStatus(res, notFound("nodes", nodes[1]));
        return json(res, 200, n);
      }
      if (url.searchParams.get("watch") === "true" || url.searchParams.get("watch") === "1") {
        return this.#watchNodes(url, res);
      }
      this.counters.nodeLists++;
      return json(res, 200, {
        kind: "NodeList",
        apiVersion: "v1",
        metadata: { resourceVersion: String(this.#rv) },
        items: [...this.#nodes.values()].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name)),
      });
    }
    if (TOKEN_REVIEWS.test(url.pathname)) {
      if (req.method !== "POST") return sendStatus(res, kubeStatus(405, "MethodNotAllowed", "create only"));
      return this.#tokens.review(body, res);
    }
    const pods = PODS.exec(url.pathname);
    if (pods?.[1] !== undefined) {
      if (req.method !== "GET") return sendStatus(res, kubeStatus(405, "MethodNotAllowed", "read only"));
      const ns = decodeURIComponent(pods[1]);
      if (pods[2] !== undefined) {
        const pod = this.#pods.get(ns, decodeURIComponent(pods[2]));
        return pod ? json(res, 200, pod) : sendStatus(res, notFound("pods", decodeURIComponent(pods[2])));
      }
      this.counters.podLists++;
      return this.#pods.list(ns, url.searchParams.get("fieldSelector") ?? "", this.#rv, res);
    }
    const events = EVENTS.exec(url.pathname);
    if (events) {
      if (req.method !== "GET") return sendStatus(res, kubeStatus(405, "MethodNotAllowed", "read only"));
      return this.#events.route(
        events[1] === undefined ? undefined : decodeURIComponent(events[1]),
        url,
        res,
      );
    }
    const leases = LEASES.exec(url.pathname);
    if (leases?.[1] !== undefined)
      return this.#leases.route(req.method ?? "GET", leases[1], leases[2], body, res);
    const rules = PROMETHEUS_RULES.exec(url.pathname);
    if (rules?.[1] !== undefined)
      return this.#prometheusRules.route(
        req.method ?? "GET",
        decodeURIComponent(rules[1]),
        rules[2] === undefined ? undefined : decodeURIComponent(rules[2]),
        body,
        res,
      );
    return sendStatus(res, kubeStatus(404, "NotFound", "the server could not find the requested resource"));
  }

  #watchNodes(url: URL, res: ServerResponse): Handled {
    if (this.#paused) {
      this.#held.push(() => this.#watchNodes(url, res));
      return HANDLED;
    }
    this.counters.nodeWatches++;
    const rvParam = url.searchParams.get("resourceVersion") ?? "";
    const from = rvParam === "" || rvParam === "0" ? undefined : Number(rvParam);
    if (from !== undefined && !Number.isInteger(from)) {
      return sendStatus(res, kubeStatus(400, "BadRequest", `invalid resourceVersion ${rvParam}`));
    }
    if (from !== undefined && from < this.#compactedRv) {
      this.counters.gone++;
      const expired = kubeStatus(410, "Expired", `too old resource version: ${from} (${this.#compactedRv})`);
      if (this.#goneAs === "status") return sendStatus(res, expired);
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(`${JSON.stringify({ type: "ERROR", object: expired })}\n`);
      return HANDLED;
    }
    res.writeHead(200, { "Content-Type": "application/json", "Transfer-Encoding": "chunked" });
    res.flushHeaders();
    const w: OpenWatch = { res };
    this.#watches.add(w);
    res.on("close", () => this.#endWatch(w));
    const timeout = Number(url.searchParams.get("timeoutSeconds") ?? "0");
    if (timeout > 0) w.timer = setTimeout(() => this.#endWatch(w), timeout * 1000);
    if (from === undefined) {
      for (const n of this.#nodes.values()) this.#send(w, { type: "ADDED", object: n });
    } else {
      for (const ev of this.#history) if (ev.rv > from) this.#send(w, { type: ev.type, object: ev.object });
    }
    return HANDLED;
  }

  #send(w: OpenWatch, ev: WatchEvent): void {
    if (!w.res.writableEnded) w.res.write(`${JSON.stringify(ev)}\n`);
  }

  #endWatch(w: OpenWatch): void {
    if (!this.#watches.delete(w)) return;
    clearTimeout(w.timer);
    w.res.end();
  }
}
