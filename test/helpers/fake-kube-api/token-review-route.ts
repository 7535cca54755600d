/**
 * The fake API server's ServiceAccount tokens and `authentication.k8s.io/v1` TokenReview (see FakeKubeApi).
 * Tokens are JWTs like the kubelet's projected ones (claims `aud`, `exp`, `iat`, `iss`, `jti`, `sub`, `kubernetes.io`
 * with the namespace, the ServiceAccount, the pod it is bound to and, as from Kubernetes 1.30, the node), signed
 * with a key of this fake, so a token edited or made up by a caller fails review.
 */
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import type { ServerResponse } from "node:http";
import { type Handled, json, sendStatus } from "./kube-http.ts";
import { type KubeObject, kubeStatus } from "./kube-objects.ts";

/** The API server's own audience, used when a review names none. */
export const API_SERVER_AUDIENCE = "https://kubernetes.default.svc.cluster.local";

/** What a token is issued for (TokenRequest of a pod's projected volume). */
export interface TokenSpec {
  namespace: string;
  serviceAccount: string;
  /** the pod the token is bound to (must exist: its uid goes into the token) */
  pod: string;
  /** default [API_SERVER_AUDIENCE] */
  audiences?: string[];
  /** default 600 */
  expirationSeconds?: number;
  /** put the pod's node into the token (Kubernetes 1.30+); default true */
  bindNode?: boolean;
}

interface Claims {
  aud: string[];
  exp: number;
  iat: number;
  iss: string;
  jti: string;
  sub: string;
  "kubernetes.io": {
    namespace: string;
    serviceaccount: { name: string; uid: string };
    pod: { name: string; uid: string };
    node?: { name: string; uid: string };
  };
}

const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString("base64url");

export class FakeTokens {
  readonly #key = randomBytes(32);
  readonly #accountUids = new Map<string, string>();
  readonly #pod: (namespace: string, name: string) => KubeObject | undefined;
  readonly #node: (name: string) => KubeObject | undefined;
  readonly #now: () => number;
  reviews = 0;

  constructor(opts: {
    pod: (namespace: string, name: string) => KubeObject | undefined;
    node: (name: string) => KubeObject | undefined;
    now?: () => number;
  }) {
    this.#pod = opts.pod;
    this.#node = opts.node;
    this.#now = opts.now ?? Date.now;
  }

  /** A signed token for `spec` (throws when the pod does not exist: the kubelet asks for running pods only). */
  issue(spec: TokenSpec): string {
    const pod = this.#pod(spec.namespace, spec.pod);
    if (pod === undefined) throw new Error(`no pod ${spec.namespace}/${spec.pod}`);
    const iat = Math.floor(this.#now() / 1000);
    const nodeName = String(pod.spec?.nodeName ?? "");
    const claims: Claims = {
      aud: spec.audiences ?? [API_SERVER_AUDIENCE],
      exp: iat + (spec.expirationSeconds ?? 600),
      iat,
      iss: API_SERVER_AUDIENCE,
      jti: randomUUID(),
      sub: `system:serviceaccount:${spec.namespace}:${spec.serviceAccount}`,
      "kubernetes.io": {
        namespace: spec.namespace,
        serviceaccount: {
          name: spec.serviceAccount,
          uid: this.#accountUid(spec.namespace, spec.serviceAccount),
        },
        pod: { name: spec.pod, uid: String(pod.metadata.uid) },
        ...((spec.bindNode ?? true) && nodeName !== ""
          ? { node: { name: nodeName, uid: String(this.#node(nodeName)?.metadata.uid ?? "") } }
          : {}),
      },
    };
    const unsigned = `${b64({ alg: "RS256", kid: "fake-kube-api" })}.${b64(claims)}`;
    return `${unsigned}.${this.#sign(unsigned)}`;
  }

  /** POST /apis/authentication.k8s.io/v1/tokenreviews: 201 with the review, as the real server answers. */
  review(body: string, res: ServerResponse): Handled {
    let req: { apiVersion?: unknown; kind?: unknown; spec?: { token?: unknown; audiences?: unknown } };
    try {
      req = JSON.parse(body) as typeof req;
    } catch {
      return sendStatus(
        res,
        kubeStatus(400, "BadRequest", "the body of the request was in an unknown format"),
      );
    }
    if (req.kind !== "TokenReview" || req.apiVersion !== "authentication.k8s.io/v1")
      return sendStatus(
        res,
        kubeStatus(400, "BadRequest", "expected a TokenReview of authentication.k8s.io/v1"),
      );
    const token = typeof req.spec?.token === "string" ? req.spec.token : "";
    const audiences = Array.isArray(req.spec?.audiences)
      ? req.spec.audiences.filter((a): a is string => typeof a === "string")
      : [];
    this.reviews++;
    const spec = { token, ...(audiences.length > 0 ? { audiences } : {}) };
    const verdict = this.#verdict(token, audiences.length > 0 ? audiences : [API_SERVER_AUDIENCE]);
    const status =
      "error" in verdict
        ? { user: {}, error: `[invalid bearer token, ${verdict.error}]` }
        : { authenticated: true, user: verdict.user, audiences: verdict.audiences };
    return json(res, 201, {
      kind: "TokenReview",
      apiVersion: "authentication.k8s.io/v1",
      metadata: { creationTimestamp: null },
      spec,
      status,
    });
  }

  #verdict(
    token: string,
    targets: string[],
  ):
    | { error: string }
    | {
        user: { username: string; uid: string; groups: string[]; extra: Record<string, string[]> };
        audiences: string[];
      } {
    const parts = token.split(".");
    if (parts.length !== 3 || !this.#verify(`${parts[0]}.${parts[1]}`, parts[2] ?? ""))
      return { error: "square/go-jose: error in cryptographic primitive" };
    const c = JSON.parse(Buffer.from(parts[1] ?? "", "base64url").toString("utf8")) as Claims;
    if (c.exp * 1000 <= this.#now()) return { error: "service account token has expired" };
    const matched = c.aud.filter((a) => targets.includes(a));
    if (matched.length === 0)
      return {
        error: `token audiences ${JSON.stringify(c.aud)} is invalid for the target audiences ${JSON.stringify(targets)}`,
      };
    const k = c["kubernetes.io"];
    const pod = this.#pod(k.namespace, k.pod.name);
    if (pod === undefined) return { error: `pods "${k.pod.name}" not found` };
    if (pod.metadata.uid !== k.pod.uid)
      return {
        error: `the UID in the bound object reference (${k.pod.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
      };
    const extra: Record<string, string[]> = {
      "authentication.kubernetes.io/credential-id": [`JTI=${c.jti}`],
      "authentication.kubernetes.io/pod-name": [k.pod.name],
      "authentication.kubernetes.io/pod-uid": [k.pod.uid],
    };
    if (k.node !== undefined) {
      extra["authentication.kubernetes.io/node-name"] = [k.node.name];
      extra["authentication.kubernetes.io/node-uid"] = [k.node.uid];
    }
    return {
      user: {
        username: c.sub,
        uid: k.serviceaccount.uid,
        groups: ["system:serviceaccounts", `system:serviceaccounts:${k.namespace}`, "system:authenticated"],
        extra,
      },
      audiences: matched,
    };
  }

  #accountUid(namespace: string, name: string): string {
    const key = `${namespace}/${name}`;
    let uid = this.#accountUids.get(key);
    if (uid === undefined) {
      uid = randomUUID();
      this.#accountUids.set(key, uid);
    }
    return uid;
  }

  #sign(unsigned: string): string {
    return createHmac("sha256", this.#key).update(unsigned).digest("base64url");
  }

  #verify(unsigned: string, signature: string): boolean {
    const want = Buffer.from(this.#sign(unsigned));
    const got = Buffer.from(signature);
    return want.length === got.length && timingSafeEqual(want, got);
  }
}
