import { grpc } from "@svc/protocol";
import { refuseMalformedRequests } from "../grpc/malformed-requests.ts";
import { type Logger, silentLogger } from "../logger.ts";
import { type GatewayAgentLookup, type GatewayService, withGatewayAuth } from "./gateway-auth.ts";
import { type ExternalGatewayConfig, loadGatewaySecrets } from "./gateway-config.ts";

export interface ExternalGatewayOptions {
  /** `controller.externalGateway` */
  config: ExternalGatewayConfig;
  /** services to serve, the same pairs as on the main listener (AgentService, TaskService, ...) */
  services: GatewayService[];
  /** the controller's registry (AgentRegistry fits): enables the agent-ownership checks of withGatewayAuth */
  agents?: GatewayAgentLookup;
  /** bind host; default 0.0.0.0 */
  host?: string;
  /** bind port; default `config.port` (tests pass 0) */
  port?: number;
  logger?: Logger;
}

/**
 * The external-agent gateway (spec §1, §5.1): a second gRPC listener with TLS (server cert/key from
 * `tls.certFile`/`tls.keyFile`) serving the given services, every call behind the bootstrap bearer token. When
 * `tls.clientCaFile` is set, clients must present a certificate that CA verifies (the TLS handshake fails
 * otherwise) and identity pinning applies: a registration's node name must be the certificate's subject CN or a
 * DNS subjectAltName (case-insensitive), and calls naming an agent id must name that node's own agent.
 * Agents registering here are stamped external (label `svc.io/external=true`, zone `external`).
 *
 * start() fails (GatewayConfigError naming the key) when a required file is unset or unreadable or the token is
 * shorter than 16 characters; with `enabled: false` it binds nothing and resolves 0. No HTTP surface.
 */
export class ExternalGateway {
  readonly #opts: ExternalGatewayOptions;
  readonly #logger: Logger;
  #server: grpc.Server | undefined;
  #port = 0;

  constructor(opts: ExternalGatewayOptions) {
    this.#opts = opts;
    this.#logger = opts.logger ?? silentLogger;
  }

  /** Reads the secrets, binds and resolves with the bound port (0 when the gateway is disabled). */
  async start(): Promise<number> {
    const cfg = this.#opts.config;
    if (!cfg.enabled || this.#server !== undefined) return this.#port;
    const secrets = loadGatewaySecrets(cfg);
    const pinIdentity = secrets.clientCa !== undefined;
    const server = new grpc.Server();
    for (const service of this.#opts.services) {
      // undecodable requests: INVALID_ARGUMENT after the gateway's checks, as on the main listener
      const guarded = withGatewayAuth(refuseMalformedRequests(service), {
        token: secrets.token,
        pinIdentity,
        agents: this.#opts.agents,
        logger: this.#logger,
      });
      server.addService(guarded.definition, guarded.handlers);
    }
    const credentials = grpc.ServerCredentials.createSsl(
      secrets.clientCa ?? null,
      [{ private_key: secrets.key, cert_chain: secrets.cert }],
      pinIdentity,
    );
    const host = this.#opts.host ?? "0.0.0.0";
    const port = this.#opts.port ?? cfg.port;
    const target = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
    this.#port = await new Promise<number>((resolve, reject) => {
      server.bindAsync(target, credentials, (err, bound) => (err ? reject(err) : resolve(bound)));
    });
    this.#server = server;
    this.#logger.info(
      { port: this.#port, clientCertificates: pinIdentity ? "required" : "not requested" },
      "external gateway listening",
    );
    return this.#port;
  }

  /** The bound port (0 before start or when disabled). */
  get port(): number {
    return this.#port;
  }

  /** Stops accepting calls and ends open streams, forcing the shutdown after `graceMs`. Safe to call twice. */
  async stop(graceMs = 1000): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    this.#port = 0;
    if (server === undefined) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        server.forceShutdown();
        resolve();
      }, graceMs);
      server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
