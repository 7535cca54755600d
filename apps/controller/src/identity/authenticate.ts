import { UnauthenticatedError } from "../errors.ts";
import { bearerToken } from "../gateway/bearer-token.ts";
import { certificateIdentities } from "../gateway/client-identity.ts";
import type { IdentifiedCall } from "./agent-guard.ts";
import { addressIdentity, type CallerIdentity, certificateIdentity, peerIp, podIdentity } from "./caller.ts";
import type { AgentTokenReviewer } from "./token-review.ts";

/**
 * The main (in-cluster) listener's proof of identity. Kubernetes mode (`reviewer` given): the call's
 * `authorization: Bearer <token>` must review as an agent pod (AgentTokenReviewer), else UNAUTHENTICATED or
 * PERMISSION_DENIED. Outside Kubernetes: the connection's source address is the identity.
 */
export function mainListenerIdentity(
  reviewer: AgentTokenReviewer | undefined,
): (call: IdentifiedCall) => Promise<CallerIdentity> {
  return async (call) => {
    const peer = peerIp(call.getPeer());
    if (reviewer === undefined) return addressIdentity(peer);
    const bearer = bearerToken(call.metadata);
    if ("refusal" in bearer)
      throw new UnauthenticatedError(`${bearer.refusal}: agents present their ServiceAccount token`);
    return podIdentity(await reviewer.review(bearer.token), peer);
  };
}

/**
 * The external gateway's identity of a caller (after its own token and certificate checks): the pinned client
 * certificate's names when a client CA is configured, else the connection's source address.
 */
export function gatewayIdentity(pinIdentity: boolean): (call: IdentifiedCall) => CallerIdentity {
  return (call) => {
    const peer = peerIp(call.getPeer());
    if (!pinIdentity) return addressIdentity(peer);
    return certificateIdentity(certificateIdentities(call.getAuthContext().sslPeerCertificate), peer);
  };
}
