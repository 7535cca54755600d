import type { AddressInfo } from "node:net";
import { agentServiceDefinition, externalCheckServiceDefinition, grpc } from "@svc/protocol";
import Fastify, { type FastifyInstance } from "fastify";
import { agentServiceHandlers } from "../../grpc/agent-service.ts";
import { PeerBroadcaster } from "../../grpc/peer-broadcaster.ts";
import type { Logger } from "../../logger.ts";
import { AgentRegistry } from "../../registry/registry.ts";
import { DiscoveryList } from "../../sd/discovery.ts";
import { registerScrapeSdRoutes } from "../../sd/scrape-sd-routes.ts";
import { ExternalAssignments } from "../assignments.ts";
import { externalCheckServiceHandlers } from "../external-check-service.ts";
import { registerExternalChecksRoutes } from "../external-checks-routes.ts";

/**
 * Test harness: the controller parts this folder and sd/ own, wired exactly as the lead wires them, around the
 * real AgentRegistry and AgentService: an HTTP app (external-checks + scrape/sd), a metrics app (scrape/sd), and a
 * gRPC server (AgentService + ExternalCheckService), all on 127.0.0.1 port 0.
 */
export interface Harness {
  registry: AgentRegistry;
  assignments: ExternalAssignments;
  leader: { value: boolean };
  http: FastifyInstance;
  metrics: FastifyInstance;
  httpUrl: string;
  metricsUrl: string;
  grpcPort: number;
  close(): Promise<void>;
}

export interface HarnessOptions {
  prometheusSD?: boolean;
  /** the controller's configured metricsPort (substituted for agents that report none) */
  fallbackMetricsPort?: number;
  logger?: Logger;
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const leader = { value: true };
  const isLeader = (): boolean => leader.value;
  const registry = new AgentRegistry({ ttlMs: 60_000, ...(opts.logger ? { logger: opts.logger } : {}) });
  const assignments = new ExternalAssignments({ isKnown: (id) => registry.get(id) !== undefined });
  const discovery = new DiscoveryList({
    agents: () => registry.list(),
    fallbackMetricsPort: opts.fallbackMetricsPort ?? 9091,
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
  const sd = { discovery, isLeader, enabled: opts.prometheusSD ?? true };
  const http = Fastify();
  const metrics = Fastify();
  registerScrapeSdRoutes(http, sd);
  registerScrapeSdRoutes(metrics, sd);
  registerExternalChecksRoutes(http, { assignments, isLeader });
  const broadcaster = new PeerBroadcaster({ registry, debounceMs: 20 });
  const server = new grpc.Server();
  server.addService(
    agentServiceDefinition(),
    agentServiceHandlers({ registry, broadcaster, allowLoopbackAgents: () => true }),
  );
  server.addService(
    externalCheckServiceDefinition(),
    externalCheckServiceHandlers({ assignments, isLeader }),
  );
  const grpcPort = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) =>
      err ? reject(err) : resolve(port),
    ),
  );
  await http.listen({ host: "127.0.0.1", port: 0 });
  await metrics.listen({ host: "127.0.0.1", port: 0 });
  const url = (app: FastifyInstance) => `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return {
    registry,
    assignments,
    leader,
    http,
    metrics,
    httpUrl: url(http),
    metricsUrl: url(metrics),
    grpcPort,
    async close() {
      assignments.close();
      broadcaster.close();
      server.forceShutdown();
      await http.close();
      await metrics.close();
    },
  };
}
