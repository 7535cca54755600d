/**
 * Test helper for the browser tests of the event feed: a real controller in-process with domain events on (agents
 * kept for 10 minutes), a raw gRPC agent client, and `register(name)`, which registers a node on the next address
 * of 198.18.0.0/24 from `firstHost` on, so each suite's nodes have addresses of their own.
 */
import { Controller, RawAgentClient, registerRequest, testConfig } from "@svc/controller";

export interface EventsController {
  readonly ctl: Controller;
  readonly raw: RawAgentClient;
  /** registers `name` (zone z1) and answers the controller's RegisterResponse */
  register(name: string): ReturnType<RawAgentClient["register"]>;
  /** the console yaml lines pointing at this controller; `grpcPort` overrides the gRPC port (e.g. a proxy's) */
  consoleYaml(grpcPort?: number): string;
  stop(): Promise<void>;
}

export async function startEventsController(firstHost: number): Promise<EventsController> {
  const ctl = new Controller({
    config: testConfig({ eventsEnabled: true, agentTtl: 600_000 }),
    version: { version: "2.5.0", commit: "web-test" },
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
  });
  await ctl.start();
  const raw = new RawAgentClient(ctl.grpcPort);
  let host = firstHost;
  return {
    ctl,
    raw,
    register: (name) =>
      raw.register(registerRequest({ node_name: name, advertise_address: `198.18.0.${host++}`, zone: "z1" })),
    consoleYaml: (grpcPort = ctl.grpcPort) =>
      `controller:\n  url: http://127.0.0.1:${ctl.httpPort}\n  grpcAddress: 127.0.0.1:${grpcPort}\n`,
    async stop() {
      raw.close();
      await ctl.stop();
    },
  };
}
