import { readFileSync } from "node:fs";
import {
  type AgentServiceClient,
  agentServiceDefinition,
  createAgentServiceClient,
  grpc,
  type RegisterRequest,
  type RegisterResponse,
} from "@svc/protocol";
import { agentServiceHandlers } from "../../grpc/agent-service.ts";
import { PeerBroadcaster } from "../../grpc/peer-broadcaster.ts";
import { AgentRegistry } from "../../registry/registry.ts";
import { registerRequest } from "../../testing/raw-client.ts";
import { ExternalGateway } from "../external-gateway.ts";
import type { ExternalGatewayConfig } from "../gateway-config.ts";
import type { CertFiles, TestPki } from "./test-pki.ts";

export const TOKEN = "s3cret-bootstrap-token-0123456789";

/** Test helper: a gateway config over `pki` (token written to a file), enabled, port 0. */
export function gatewayConfig(pki: TestPki, opts: { clientCa: boolean }): ExternalGatewayConfig {
  return {
    enabled: true,
    port: 0,
    tls: {
      certFile: pki.server.certFile,
      keyFile: pki.server.keyFile,
      clientCaFile: opts.clientCa ? pki.ca.certFile : "",
    },
    bootstrapTokenFile: pki.file("token", `${TOKEN}\n`),
  };
}

/** Test helper: a real AgentRegistry + AgentService handlers behind an ExternalGateway on 127.0.0.1:0. */
export async function startGatewayRig(cfg: ExternalGatewayConfig): Promise<{
  registry: AgentRegistry;
  gateway: ExternalGateway;
  port: number;
  stop: () => Promise<void>;
}> {
  const registry = new AgentRegistry({ ttlMs: 30_000 });
  const broadcaster = new PeerBroadcaster({ registry, debounceMs: 10 });
  const handlers = agentServiceHandlers({ registry, broadcaster, allowLoopbackAgents: () => true });
  const gateway = new ExternalGateway({
    config: cfg,
    services: [{ definition: agentServiceDefinition(), handlers }],
    agents: registry,
    host: "127.0.0.1",
  });
  const port = await gateway.start();
  return {
    registry,
    gateway,
    port,
    stop: async () => {
      broadcaster.close();
      await gateway.stop(200);
    },
  };
}

/** Test helper: how a client dials the gateway. */
export interface Dial {
  token?: string;
  client?: CertFiles;
  /** trust this CA file (default: the PKI's) */
  caFile?: string;
  plaintext?: boolean;
}

/** Test helper: an AgentService client to the gateway with the given TLS/token settings. */
export function dialGateway(pki: TestPki, port: number, d: Dial): AgentServiceClient {
  if (d.plaintext) return createAgentServiceClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const ssl = grpc.credentials.createSsl(
    readFileSync(d.caFile ?? pki.ca.certFile),
    d.client ? readFileSync(d.client.keyFile) : null,
    d.client ? readFileSync(d.client.certFile) : null,
  );
  const token = d.token;
  const creds =
    token === undefined
      ? ssl
      : grpc.credentials.combineChannelCredentials(
          ssl,
          grpc.credentials.createFromMetadataGenerator((_p, cb) => {
            const md = new grpc.Metadata();
            md.set("authorization", `Bearer ${token}`);
            cb(null, md);
          }),
        );
  return createAgentServiceClient(`127.0.0.1:${port}`, creds);
}

/** Test helper: Register as a promise; rejects with the grpc ServiceError. */
export function register(
  client: AgentServiceClient,
  over: Partial<RegisterRequest>,
): Promise<RegisterResponse> {
  const req = registerRequest({ advertise_address: "127.0.0.1", version: "2.5.0", ...over });
  return new Promise((resolve, reject) => {
    client.Register(req, { deadline: Date.now() + 3000 }, (err, res) =>
      err || !res ? reject(err ?? new Error("empty response")) : resolve(res),
    );
  });
}

/** Test helper: the gRPC status code a promise rejects with. */
export async function statusOf(p: Promise<unknown>): Promise<grpc.status | "ok"> {
  try {
    await p;
    return "ok";
  } catch (err) {
    return (err as grpc.ServiceError).code;
  }
}
