/**
 * Test fixture: a real in-process controller (election off, long agent TTL) with agents registered over gRPC as
 * the tests need them: node name, zone and capabilities each.
 */
import { Controller, RawAgentClient, registerRequest, testConfig } from "@svc/controller";

/** One agent to register. */
export interface FixtureAgent {
  node: string;
  zone: string;
  capabilities: string[];
}

/** A running controller and its URL. */
export interface LiveController {
  controller: Controller;
  url: string;
  register(a: FixtureAgent): Promise<void>;
  close(): Promise<void>;
}

/** Starts a controller and registers `agents` (addresses 198.18.0.x, never dialled by these tests). */
export async function startLiveController(agents: readonly FixtureAgent[]): Promise<LiveController> {
  const controller = new Controller({
    config: testConfig({ agentTtl: 600_000 }),
    version: { version: "2.5.0", commit: "test" },
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
  });
  await controller.start();
  let n = 10;
  const register = async (a: FixtureAgent) => {
    const raw = new RawAgentClient(controller.grpcPort);
    try {
      await raw.register(
        registerRequest({
          node_name: a.node,
          agent_id: `id-${a.node}`,
          advertise_address: `198.18.0.${n++}`,
          zone: a.zone,
          capabilities: a.capabilities,
          version: "2.5.0",
        }),
      );
    } finally {
      raw.close();
    }
  };
  for (const a of agents) await register(a);
  return {
    controller,
    url: `http://127.0.0.1:${controller.httpPort}`,
    register,
    close: () => controller.stop(),
  };
}
