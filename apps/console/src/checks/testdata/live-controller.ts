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
  /** the running controller (a new object after restart()) */
  controller: Controller;
  url: string;
  register(a: FixtureAgent): Promise<void>;
  /** stops the controller and starts a fresh one on the same ports, with the same agents registered again */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a controller and registers `agents` (addresses 198.18.0.x, never dialled by these tests). */
export async function startLiveController(agents: readonly FixtureAgent[]): Promise<LiveController> {
  const make = (ports?: { httpPort: number; grpcPort: number }) =>
    new Controller({
      config: { ...testConfig({ agentTtl: 600_000 }), ...ports },
      version: { version: "2.5.0", commit: "test" },
      grpcHost: "127.0.0.1",
      httpHost: "127.0.0.1",
    });
  let controller = make();
  await controller.start();
  let n = 10;
  const registered: FixtureAgent[] = [];
  const register = async (a: FixtureAgent) => {
    registered.push(a);
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
  const out: LiveController = {
    controller,
    url: `http://127.0.0.1:${controller.httpPort}`,
    register,
    async restart() {
      const ports = { httpPort: controller.httpPort, grpcPort: controller.grpcPort };
      await controller.stop();
      controller = make(ports);
      await controller.start();
      out.controller = controller;
      const again = registered.splice(0);
      for (const a of again) await register(a);
    },
    close: () => controller.stop(),
  };
  return out;
}
