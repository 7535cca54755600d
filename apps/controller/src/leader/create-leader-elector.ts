import type { SvcConfig } from "@svc/core";
import type { Logger } from "../logger.ts";
import { electionIdentity, electionNamespace } from "./election-env.ts";
import type { KubeConfig } from "./kube-config.ts";
import { AlwaysLeader, type LeaderElector } from "./leader-elector.ts";
import { LeaseElector, type LeaseElectorOptions } from "./lease-elector.ts";

/** Inputs of {@link createLeaderElector}. */
export interface CreateLeaderElectorOptions {
  config: SvcConfig;
  /** the Kubernetes API, undefined outside Kubernetes (see kubeConfigFromEnvironment()) */
  kubeConfig: KubeConfig | undefined;
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** timing and callbacks passed to the LeaseElector */
  lease?: Pick<
    LeaseElectorOptions,
    "leaseDurationMs" | "renewDeadlineMs" | "retryPeriodMs" | "onStartedLeading" | "onStoppedLeading" | "name"
  >;
}

/**
 * The controller's elector: a {@link LeaseElector} on Lease `svc-controller` in the controller's namespace when
 * `controller.leaderElection` is true and a Kubernetes API is available; otherwise {@link AlwaysLeader}.
 */
export function createLeaderElector(opts: CreateLeaderElectorOptions): LeaderElector {
  if (!opts.config.controller.leaderElection || opts.kubeConfig === undefined) return new AlwaysLeader();
  const env = opts.env ?? process.env;
  return new LeaseElector({
    ...opts.lease,
    kubeConfig: opts.kubeConfig,
    identity: electionIdentity(env),
    namespace: electionNamespace(env),
    logger: opts.logger,
  });
}
