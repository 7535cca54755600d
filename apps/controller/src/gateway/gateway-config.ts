import { readFileSync } from "node:fs";
import type { SvcConfig } from "@svc/core";

/** `controller.externalGateway` as the loader delivers it. */
export type ExternalGatewayConfig = SvcConfig["controller"]["externalGateway"];

/** Minimum length of the bootstrap token (spec §5.1), counted after trimming surrounding whitespace. */
export const MIN_TOKEN_LENGTH = 16;

const PREFIX = "controller.externalGateway";

/** A gateway misconfiguration that fails startup; `key` is the full key path blamed, also leading the message. */
export class GatewayConfigError extends Error {
  readonly key: string;
  constructor(key: string, reason: string) {
    super(`${key}: ${reason}`);
    this.name = "GatewayConfigError";
    this.key = key;
  }
}

/** The files of an enabled gateway, read. `clientCa` is undefined when no client CA is configured. */
export interface GatewaySecrets {
  cert: Buffer;
  key: Buffer;
  clientCa: Buffer | undefined;
  /** trimmed token, at least MIN_TOKEN_LENGTH characters */
  token: string;
}

function readKey(key: string, path: string): Buffer {
  if (path === "") throw new GatewayConfigError(key, `required when ${PREFIX}.enabled is true`);
  try {
    const data = readFileSync(path);
    if (data.length === 0) throw new GatewayConfigError(key, `file ${path} is empty`);
    return data;
  } catch (err) {
    if (err instanceof GatewayConfigError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new GatewayConfigError(key, `cannot read ${path} (${code})`);
  }
}

/**
 * Reads what an enabled gateway needs, failing startup (GatewayConfigError naming the key) when
 * `tls.certFile`, `tls.keyFile` or `bootstrapTokenFile` is unset, any configured file (including
 * `tls.clientCaFile`) cannot be read or is empty, or the trimmed token is shorter than 16 characters.
 * Never puts the token into a message.
 */
export function loadGatewaySecrets(cfg: ExternalGatewayConfig): GatewaySecrets {
  const cert = readKey(`${PREFIX}.tls.certFile`, cfg.tls.certFile);
  const key = readKey(`${PREFIX}.tls.keyFile`, cfg.tls.keyFile);
  const clientCa =
    cfg.tls.clientCaFile === "" ? undefined : readKey(`${PREFIX}.tls.clientCaFile`, cfg.tls.clientCaFile);
  const tokenKey = `${PREFIX}.bootstrapTokenFile`;
  const token = readKey(tokenKey, cfg.bootstrapTokenFile).toString("utf8").trim();
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new GatewayConfigError(
      tokenKey,
      `token in ${cfg.bootstrapTokenFile} must be at least ${MIN_TOKEN_LENGTH} characters, got ${token.length}`,
    );
  }
  return { cert, key, clientCa, token };
}
