import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createTaskServiceClient, grpc, proto } from "@svc/protocol";
import { Controller } from "../controller.ts";
import { RawAgentClient, registerRequest } from "../testing/raw-client.ts";
import { testConfig } from "../testing/test-config.ts";
import { capMessage, ECHO_MAX_CHARS, MESSAGE_MAX_BYTES, quote } from "./echo.ts";

const HUGE = "n".repeat(100 * 1024);

test("quote keeps short values whole and cuts long ones to 128 characters plus their size", () => {
  assert.equal(quote("node-1"), '"node-1"');
  assert.equal(quote("x".repeat(ECHO_MAX_CHARS)), JSON.stringify("x".repeat(ECHO_MAX_CHARS)));
  assert.equal(quote(HUGE), `${JSON.stringify("n".repeat(128))}…(102400 bytes)`);
  // never splits a surrogate pair; the size is in UTF-8 bytes
  const emoji = "😀".repeat(200);
  assert.equal(quote(emoji), `${JSON.stringify("😀".repeat(128))}…(800 bytes)`);
});

test("capMessage bounds a whole message in bytes", () => {
  assert.equal(capMessage("short"), "short");
  const capped = capMessage(`bad value ${HUGE}`);
  assert.ok(Buffer.byteLength(capped) <= MESSAGE_MAX_BYTES, `${Buffer.byteLength(capped)} bytes`);
  assert.match(capped, /^bad value n+…\(102410 bytes\)$/);
  assert.ok(Buffer.byteLength(capMessage("é".repeat(1000))) <= MESSAGE_MAX_BYTES);
});

const c = new Controller({
  config: testConfig(),
  version: { version: "2.5.0", commit: "t" },
  grpcHost: "127.0.0.1",
  httpHost: "127.0.0.1",
  isLeader: () => true,
});
before(() => c.start());
after(() => c.stop());

function failure(p: Promise<unknown>): Promise<grpc.ServiceError> {
  return p.then(
    () => assert.fail("expected an error status"),
    (err: grpc.ServiceError) => err,
  );
}

test("a 100 KB field reaches a real gRPC client as an error under 512 bytes, with the status intact", async () => {
  const agents = new RawAgentClient(c.grpcPort);
  const tasks = createTaskServiceClient(`127.0.0.1:${c.grpcPort}`, grpc.credentials.createInsecure());
  try {
    const reg = await failure(agents.register(registerRequest({ node_name: "n1", advertise_address: HUGE })));
    assert.equal(reg.code, grpc.status.INVALID_ARGUMENT, reg.details);
    assert.ok(Buffer.byteLength(reg.details) <= MESSAGE_MAX_BYTES, `${Buffer.byteLength(reg.details)} bytes`);
    assert.match(reg.details, /^advertise_address: /);

    const report = await failure(
      new Promise((resolve, reject) =>
        tasks.ReportTaskResult(
          proto.TaskResult.fromPartial({ agent_id: "a", task_id: HUGE }),
          { deadline: Date.now() + 5000 },
          (err, res) => (err ? reject(err) : resolve(res)),
        ),
      ),
    );
    assert.equal(report.code, grpc.status.NOT_FOUND, report.details);
    assert.equal(report.details, `no pending task ${quote(HUGE)}`);
    assert.ok(Buffer.byteLength(report.details) < MESSAGE_MAX_BYTES);
  } finally {
    agents.client.close();
    tasks.close();
  }
});
