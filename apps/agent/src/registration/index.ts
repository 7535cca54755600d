export { type PeersListener, RegistrationClient, type RegistrationClientOptions } from "./client.ts";
export {
  type AgentDial,
  type AgentDialConfig,
  AgentDialConfigError,
  agentCredentials,
  agentTlsEnabled,
  bearerCallCredentials,
  MIN_BOOTSTRAP_TOKEN_LENGTH,
} from "./credentials.ts";
export {
  type AdvertiseAddressInput,
  type BackoffPolicy,
  backoffDelay,
  capabilitiesFor,
  REGISTER_BACKOFF,
  type RegistrationEnv,
  registrationLabels,
  resolveAdvertiseAddress,
} from "./facts.ts";
export type { Logger } from "./logger.ts";
