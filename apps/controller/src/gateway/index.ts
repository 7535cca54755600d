export { checkBearerToken, type TokenRefusal } from "./bearer-token.ts";
export { certificateIdentities, identityMatches } from "./client-identity.ts";
export { ExternalGateway, type ExternalGatewayOptions } from "./external-gateway.ts";
export {
  type GatewayAgentLookup,
  type GatewayAgentView,
  type GatewayAuthOptions,
  type GatewayService,
  withGatewayAuth,
} from "./gateway-auth.ts";
export {
  type ExternalGatewayConfig,
  GatewayConfigError,
  type GatewaySecrets,
  loadGatewaySecrets,
  MIN_TOKEN_LENGTH,
} from "./gateway-config.ts";
