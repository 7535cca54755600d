import assert from "node:assert/strict";
import { type AddressInfo, createServer, type Server } from "node:net";
import { after, before, describe, test } from "node:test";
import { AgentTaskRunner } from "@svc/agent";
import { Controller, RawAgentClient, registerRequest, testConfig, waitUntil } from "@svc/controller";
import { parseArgs, UsageError } from "./args.ts";
import { checkCommand, formatCheckResult } from "./check-command.ts";
import type { CheckResultBody } from "./controller-client.ts";
import { captureIo } from "./testdata/capture-io.ts";

async function listen(): Promise<Server> {
  const s = createServer((sock) => sock.end());
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return s;
}
const portOf = (s: Server): number => (s.address() as AddressInfo).port;

describe("svc check against a real controller and a real agent task runner", () => {
  let c: Controller;
  let url = "";
  let runner: AgentTaskRunner;
  let open: Server;
  let closedPort = 0;

  before(async () => {
    c = new Controller({
      config: testConfig(),
      version: { version: "2.5.0", commit: "test" },
      allowLoopbackAgents: true,
      grpcHost: "127.0.0.1",
      httpHost: "127.0.0.1",
    });
    await c.start();
    url = `http://127.0.0.1:${c.httpPort}`;
    open = await listen();
    const closed = await listen();
    closedPort = portOf(closed);
    await new Promise<void>((r) => closed.close(() => r()));
    const raw = new RawAgentClient(c.grpcPort);
    const reg = (node: string, httpPort: number, zone: string) =>
      raw.register(
        registerRequest({
          node_name: node,
          agent_id: node,
          advertise_address: "127.0.0.1",
          zone,
          capabilities: ["plane:tcp", "plane:mtr"],
          http_port: httpPort,
          version: "2.5.0",
        }),
      );
    try {
      await reg("src-node", portOf(open), "zone-a");
      await reg("up-node", portOf(open), "zone-b");
      await reg("down-node", closedPort, "zone-b");
    } finally {
      raw.close();
    }
    runner = new AgentTaskRunner({
      controllerAddress: `127.0.0.1:${c.grpcPort}`,
      agentId: () => "src-node",
      registered: () => true,
      ports: { httpPort: portOf(open), udpPort: 0 },
    });
    runner.start();
    await waitUntil(() => c.tasks.hasStream("src-node"), "task stream of src-node");
  });
  after(async () => {
    await runner.stop();
    await c.stop();
    await new Promise<void>((r) => open.close(() => r()));
  });

  const run = async (argv: string[]) => {
    const io = captureIo();
    const code = await checkCommand(parseArgs(["check", ...argv, "--controller", url]), io);
    return { code, io };
  };

  test("a check that succeeds exits 0 and prints the result readably", async () => {
    const { code, io } = await run(["src-node", "up-node", "--type", "tcp", "--timeout", "10"]);
    assert.equal(code, 0, io.stderr.join("\n"));
    assert.match(io.stdout[0] ?? "", /^OK {2}tcp src-node \(zone-a\) -> up-node \(zone-b\) in \d/);
    assert.ok(
      io.stdout.some((l) => /^ {2}at \d{4}-\d\d-\d\dT/.test(l)),
      io.text(),
    );
  });

  test("a check that ran and failed exits 2; -o json prints the CheckResult", async () => {
    const { code, io } = await run(["src-node", "down-node", "--type", "tcp", "-o", "json"]);
    assert.equal(code, 2, io.stderr.join("\n"));
    const r = JSON.parse(io.text()) as CheckResultBody;
    assert.equal(r.success, false);
    assert.equal(r.destination, "down-node");
    assert.equal(r.destZone, "zone-b");
  });

  test("API refusals exit 1 and print the controller's reason", async () => {
    const cases: [string[], RegExp][] = [
      [["ghost", "up-node", "--type", "tcp"], /controller answered 404: .*ghost/],
      [
        ["src-node", "up-node", "--type", "carrier-pigeon"],
        /controller answered 400: invalid type "carrier-pigeon"/,
      ],
      [["src-node", "up-node", "--type", "icmp"], /controller answered 501: .*icmp/],
      [
        ["src-node", "example", "--type", "tcp", "--external", "127.0.0.1"],
        /controller answered 501: .*external-checks/,
      ],
    ];
    for (const [argv, want] of cases) {
      const { code, io } = await run(argv);
      assert.equal(code, 1, argv.join(" "));
      assert.match(io.stderr.join("\n"), want);
      assert.deepEqual(io.stdout, []);
    }
  });

  test("command-line mistakes are usage errors", async () => {
    for (const argv of [
      ["src-node", "--type", "tcp"],
      ["src-node", "up-node"],
      ["src-node", "up-node", "--type", "tcp", "--timeout", "500"],
      ["src-node", "up-node", "--type", "tcp", "--timeout", "soon"],
      ["src-node", "up-node", "extra", "--type", "tcp"],
      ["src-node", "up-node", "--type", "tcp", "--frobnicate", "1"],
    ]) {
      await assert.rejects(run(argv), UsageError, argv.join(" "));
    }
  });
});

test("formatCheckResult renders icmp and mtr details", () => {
  const base = { source: "a", destination: "b", sourceZone: "z1", destZone: "z2", duration: 2_500_000 };
  const icmp = formatCheckResult({
    ...base,
    type: "icmp",
    success: true,
    details: { rtt: 1_250_000, lossRatio: 0.2 },
  });
  assert.deepEqual(icmp, ["OK  icmp a (z1) -> b (z2) in 2.50 ms", "  rtt: 1.25 ms", "  loss: 20.0%"]);
  const mtr = formatCheckResult({
    ...base,
    type: "mtr",
    success: false,
    error: "destination not reached",
    details: {
      target: "198.18.0.9",
      hops: [
        { number: 1, ip: "198.18.0.1", rtt: 400_000, lossRatio: 0 },
        { number: 2, ip: "", rtt: 0, lossRatio: 1 },
      ],
    },
  });
  assert.deepEqual(mtr, [
    "FAILED  mtr a (z1) -> b (z2) in 2.50 ms",
    "  error: destination not reached",
    "  target: 198.18.0.9",
    "  HOP  ADDRESS     RTT     LOSS",
    "  1    198.18.0.1  400 µs  0%",
    "  2    *           0 µs    100%",
  ]);
});
