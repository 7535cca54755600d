import { readFileSync } from "node:fs";
import { checkServerIdentity, type PeerCertificate } from "node:tls";
import type { TlsFiles } from "@svc/core";
import { grpc } from "@svc/protocol";

/** Minimum bootstrap token length the gateway accepts (spec §5.1); refused here already, before dialling. */
export const MIN_BOOTSTRAP_TOKEN_LENGTH = 16;

/** `agent.tls` and `agent.bootstrapTokenFile` as the loader delivers them. */
export interface AgentDialConfig {
  tls: TlsFiles;
  bootstrapTokenFile: string;
}

/** What to dial the controller with. */
export interface AgentDial {
  credentials: grpc.ChannelCredentials;
  /**
   * Channel options to pass to the client when it takes them: `grpc.ssl_target_name_override` (SNI and
   * authority) when `serverName` is set. The credentials already verify the server against `serverName`, so a
   * client that takes no options still checks the right name.
   */
  channelOptions: grpc.ChannelOptions;
  tls: boolean;
  token: boolean;
}

/** A dial misconfiguration; the message starts with the full key path. */
export class AgentDialConfigError extends Error {
  constructor(key: string, reason: string) {
    super(`${key}: ${reason}`);
    this.name = "AgentDialConfigError";
  }
}

function read(key: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new AgentDialConfigError(key, `cannot read ${path} (${code})`);
  }
}

/** Whether the dial uses TLS: `agent.tls.enabled` or any TLS key set (spec §8.2: any TLS key switches TLS on). */
export function agentTlsEnabled(tls: TlsFiles): boolean {
  return (
    tls.enabled || tls.caFile !== "" || tls.certFile !== "" || tls.keyFile !== "" || tls.serverName !== ""
  );
}

/**
 * Builds the agent's gRPC channel credentials from `agent.tls.*` and `agent.bootstrapTokenFile`:
 * - no TLS key and no token: insecure (in-cluster default);
 * - TLS: server verified against `caFile` (system roots when empty) and against `serverName` when set (else the
 *   dialled host); `certFile`+`keyFile` presented as client certificate (one without the other is refused);
 * - token (file content, trimmed, at least 16 characters): sent on every call as `authorization: Bearer <token>`;
 *   refused without TLS, as the loader does. The token is read once, here.
 * Throws AgentDialConfigError naming the key on any of these problems.
 */
export function agentCredentials(cfg: AgentDialConfig): AgentDial {
  const tls = cfg.tls;
  const useTls = agentTlsEnabled(tls);
  const tokenKey = "agent.bootstrapTokenFile";
  if (cfg.bootstrapTokenFile !== "" && !useTls)
    throw new AgentDialConfigError(tokenKey, "requires TLS (set agent.tls.enabled or an agent.tls file)");
  if (!useTls)
    return { credentials: grpc.credentials.createInsecure(), channelOptions: {}, tls: false, token: false };
  if ((tls.certFile === "") !== (tls.keyFile === "")) {
    const missing = tls.certFile === "" ? "agent.tls.certFile" : "agent.tls.keyFile";
    throw new AgentDialConfigError(missing, "agent.tls.certFile and agent.tls.keyFile go together");
  }
  const ca = tls.caFile !== "" ? read("agent.tls.caFile", tls.caFile) : null;
  const cert = tls.certFile !== "" ? read("agent.tls.certFile", tls.certFile) : null;
  const key = tls.keyFile !== "" ? read("agent.tls.keyFile", tls.keyFile) : null;
  const serverName = tls.serverName;
  const verify =
    serverName !== ""
      ? { checkServerIdentity: (_host: string, c: PeerCertificate) => checkServerIdentity(serverName, c) }
      : {};
  let credentials = grpc.credentials.createSsl(ca, key, cert, verify);
  let token = false;
  if (cfg.bootstrapTokenFile !== "") {
    const value = read(tokenKey, cfg.bootstrapTokenFile).toString("utf8").trim();
    if (value.length < MIN_BOOTSTRAP_TOKEN_LENGTH)
      throw new AgentDialConfigError(
        tokenKey,
        `token in ${cfg.bootstrapTokenFile} must be at least ${MIN_BOOTSTRAP_TOKEN_LENGTH} characters, got ${value.length}`,
      );
    credentials = grpc.credentials.combineChannelCredentials(credentials, bearerCallCredentials(value));
    token = true;
  }
  const channelOptions: grpc.ChannelOptions =
    serverName !== "" ? { "grpc.ssl_target_name_override": serverName } : {};
  return { credentials, channelOptions, tls: true, token };
}

/** Call credentials adding `authorization: Bearer <token>` to every call. */
export function bearerCallCredentials(token: string): grpc.CallCredentials {
  return grpc.credentials.createFromMetadataGenerator((_params, callback) => {
    const md = new grpc.Metadata();
    md.set("authorization", `Bearer ${token}`);
    callback(null, md);
  });
}
