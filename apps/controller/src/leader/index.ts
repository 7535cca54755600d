export { type CreateLeaderElectorOptions, createLeaderElector } from "./create-leader-elector.ts";
export {
  DEFAULT_LEASE_NAME,
  electionIdentity,
  electionNamespace,
  SERVICE_ACCOUNT_NAMESPACE_FILE,
} from "./election-env.ts";
export {
  type KubeConfig,
  kubeConfigForServer,
  kubeConfigFromEnvironment,
  kubeConfigFromFile,
} from "./kube-config.ts";
export { AlwaysLeader, type LeaderElector } from "./leader-elector.ts";
export { LeaseElector, type LeaseElectorOptions, type LeaseElectorStopOptions } from "./lease-elector.ts";
