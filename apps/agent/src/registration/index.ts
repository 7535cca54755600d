export { type PeersListener, RegistrationClient, type RegistrationClientOptions } from "./client.ts";
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
