import { createHash } from "node:crypto";
import { AuthenticationV1Api, CoreV1Api, type KubeConfig, type V1Pod } from "@kubernetes/client-node";
import { ForbiddenError, UnauthenticatedError, UpstreamError } from "../errors.ts";
import { quote } from "../grpc/echo.ts";
import type { ReviewedPod } from "./caller.ts";
import { tokenExpiry } from "./token-expiry.ts";

/** The `extra` keys the API server puts on a pod-bound ServiceAccount token's user (node-name from 1.30). */
export const EXTRA_POD_NAME = "authentication.kubernetes.io/pod-name";
export const EXTRA_POD_UID = "authentication.kubernetes.io/pod-uid";
export const EXTRA_NODE_NAME = "authentication.kubernetes.io/node-name";

/** Proves which pod a bearer token belongs to (Kubernetes mode). */
export interface AgentTokenReviewer {
  /**
   * The pod the token was issued to; throws UnauthenticatedError (not a valid token for this audience),
   * ForbiddenError (valid, but not an agent pod: another service account, a pod that is gone, a node that does
   * not match) or UpstreamError (the API did not answer)
   */
  review(token: string): Promise<ReviewedPod>;
  /** Whether pod `name` (in the agents' namespace) exists now with `uid` (a fresh read, never cached). */
  podExists(name: string, uid: string): Promise<boolean>;
}

export interface KubernetesTokenReviewerOptions {
  kubeConfig: KubeConfig;
  /** the agents' namespace (the controller's own: the chart installs both there) */
  namespace: string;
  /** the agents' ServiceAccount name (`controller.agentIdentity.serviceAccount`) */
  serviceAccount: string;
  /** the audience agent tokens are minted for (`controller.agentIdentity.audience`) */
  audience: string;
  /** longest a verdict is reused, ms (never past the token's own expiry); default 60 s */
  cacheMs?: number;
  /** most verdicts kept; default 20,000 (two per agent of a 10,000-node fleet across a rotation) */
  cacheEntries?: number;
  /** clock, ms since epoch */
  now?: () => number;
}

interface Cached {
  until: number;
  pod: ReviewedPod;
}

/**
 * AgentTokenReviewer through the API server: a TokenReview (spec.audiences = [audience]) decides whether the
 * token is valid; its user must be `system:serviceaccount:<namespace>:<serviceAccount>` and carry the pod's name
 * and uid in `extra` (pod-bound projected tokens do); the pod is then read for its node, IPs and hostNetwork (and,
 * for a host-network pod, its node's addresses). The pod must still exist with that uid, and when the token names
 * a node (Kubernetes 1.30+) it must be the pod's node.
 *
 * Accepted verdicts are cached, keyed by a SHA-256 of the token (the token itself is never kept), for `cacheMs`
 * or until the token's `exp` claim, whichever is sooner; the cache holds at most `cacheEntries` (the soonest to
 * expire are dropped first when full). Concurrent reviews of one token share one request. Refusals are not
 * cached: a refused caller pays one review per call, which the gRPC listener's own limits bound.
 */
export class KubernetesTokenReviewer implements AgentTokenReviewer {
  readonly #auth: AuthenticationV1Api;
  readonly #core: CoreV1Api;
  readonly #opts: KubernetesTokenReviewerOptions;
  readonly #now: () => number;
  readonly #cache = new Map<string, Cached>();
  readonly #pending = new Map<string, Promise<ReviewedPod>>();

  constructor(opts: KubernetesTokenReviewerOptions) {
    this.#opts = opts;
    this.#auth = opts.kubeConfig.makeApiClient(AuthenticationV1Api);
    this.#core = opts.kubeConfig.makeApiClient(CoreV1Api);
    this.#now = opts.now ?? Date.now;
  }

  /** Verdicts cached now (for tests and metrics). */
  get cached(): number {
    return this.#cache.size;
  }

  review(token: string): Promise<ReviewedPod> {
    const key = createHash("sha256").update(token).digest("base64url");
    const hit = this.#cache.get(key);
    if (hit !== undefined && hit.until > this.#now()) return Promise.resolve(hit.pod);
    this.#cache.delete(key);
    const pending = this.#pending.get(key);
    if (pending !== undefined) return pending;
    const asked = this.#ask(token).then((pod) => {
      this.#remember(key, token, pod);
      return pod;
    });
    const settled = asked.finally(() => this.#pending.delete(key));
    this.#pending.set(key, settled);
    return settled;
  }

  async #ask(token: string): Promise<ReviewedPod> {
    const o = this.#opts;
    let status: {
      authenticated?: boolean;
      error?: string;
      audiences?: string[];
      user?: { username?: string; extra?: Record<string, string[]> };
    };
    try {
      const review = await this.#auth.createTokenReview({
        body: {
          apiVersion: "authentication.k8s.io/v1",
          kind: "TokenReview",
          spec: { token, audiences: [o.audience] },
        },
      });
      status = review.status ?? {};
    } catch (err) {
      throw new UpstreamError(`cannot review the agent's token with the Kubernetes API: ${why(err)}`);
    }
    if (status.authenticated !== true) {
      throw new UnauthenticatedError(
        `token refused by the API server: ${status.error || "not authenticated"}`,
      );
    }
    if (status.audiences !== undefined && !status.audiences.includes(o.audience)) {
      throw new UnauthenticatedError(`token is not for audience ${quote(o.audience)}`);
    }
    const want = `system:serviceaccount:${o.namespace}:${o.serviceAccount}`;
    const username = status.user?.username ?? "";
    if (username !== want) {
      throw new ForbiddenError(
        `token belongs to ${quote(username)}, not to the agents' account ${quote(want)}`,
      );
    }
    const extra = status.user?.extra ?? {};
    const one = (k: string): string | undefined => (Object.hasOwn(extra, k) ? extra[k]?.[0] : undefined);
    const podName = one(EXTRA_POD_NAME);
    const podUid = one(EXTRA_POD_UID);
    if (podName === undefined || podUid === undefined) {
      throw new ForbiddenError("token is not bound to a pod (no pod name and uid in the review)");
    }
    const pod = await this.#readPod(podName);
    if (pod?.metadata?.uid !== podUid) {
      throw new ForbiddenError(`pod ${quote(podName)} of the token no longer exists`);
    }
    const nodeName = pod.spec?.nodeName ?? "";
    const tokenNode = one(EXTRA_NODE_NAME);
    if (nodeName === "" || (tokenNode !== undefined && tokenNode !== nodeName)) {
      throw new ForbiddenError(
        `token names node ${quote(tokenNode ?? "")}, its pod runs on ${quote(nodeName)}`,
      );
    }
    const hostNetwork = pod.spec?.hostNetwork === true;
    const podIps = (pod.status?.podIPs ?? []).map((p) => p.ip).filter((ip) => ip !== "");
    if (podIps.length === 0 && pod.status?.podIP) podIps.push(pod.status.podIP);
    return {
      namespace: o.namespace,
      name: podName,
      uid: podUid,
      serviceAccount: o.serviceAccount,
      nodeName,
      podIps,
      hostNetwork,
      nodeAddresses: hostNetwork ? await this.#nodeAddresses(nodeName) : [],
    };
  }

  async podExists(name: string, uid: string): Promise<boolean> {
    return (await this.#readPod(name))?.metadata?.uid === uid;
  }

  async #readPod(name: string): Promise<V1Pod | undefined> {
    try {
      return await this.#core.readNamespacedPod({ name, namespace: this.#opts.namespace });
    } catch (err) {
      if ((err as { code?: number }).code === 404) return undefined;
      throw new UpstreamError(`cannot read the agent's pod from the Kubernetes API: ${why(err)}`);
    }
  }

  async #nodeAddresses(name: string): Promise<string[]> {
    try {
      const node = await this.#core.readNode({ name });
      return (node.status?.addresses ?? [])
        .filter((a) => a.type === "InternalIP" || a.type === "ExternalIP")
        .map((a) => a.address);
    } catch (err) {
      throw new UpstreamError(`cannot read the agent's node from the Kubernetes API: ${why(err)}`);
    }
  }

  #remember(key: string, token: string, pod: ReviewedPod): void {
    const now = this.#now();
    const until = Math.min(
      now + (this.#opts.cacheMs ?? 60_000),
      tokenExpiry(token) ?? Number.POSITIVE_INFINITY,
    );
    if (until <= now) return;
    const max = this.#opts.cacheEntries ?? 20_000;
    if (this.#cache.size >= max) {
      for (const [k, c] of this.#cache) if (c.until <= now) this.#cache.delete(k);
      // still full: drop the soonest to expire (insertion order approximates it: every entry has the same cap)
      for (const k of this.#cache.keys()) {
        if (this.#cache.size < max) break;
        this.#cache.delete(k);
      }
    }
    this.#cache.set(key, { until, pod });
  }
}

function why(err: unknown): string {
  return err instanceof Error ? err.message.slice(0, 200) : "request failed";
}
