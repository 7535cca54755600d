import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { grpc } from "@svc/protocol";
import { Controller } from "../controller.ts";
import { testConfig } from "../testing/test-config.ts";

let controller: Controller;
let client: grpc.Client;
const identity = (b: Buffer): Buffer => b;

before(async () => {
  controller = new Controller({
    config: testConfig({ eventsEnabled: true }),
    version: { version: "2.5.0", commit: "x" },
    grpcHost: "127.0.0.1",
    httpHost: "127.0.0.1",
  });
  await controller.start();
  client = new grpc.Client(`127.0.0.1:${controller.grpcPort}`, grpc.credentials.createInsecure());
});

after(async () => {
  client.close();
  await controller.stop();
});

// wire type 7 does not exist: the generated decoder throws, which grpc-js answers with INTERNAL on its own
const UNDECODABLE = Buffer.from([0x0f, 0x01]);

test("a unary request that does not decode is INVALID_ARGUMENT `malformed request`, not INTERNAL", async () => {
  const err = await new Promise<grpc.ServiceError | null>((resolve) => {
    client.makeUnaryRequest(
      "/svc.v1.AgentService/Register",
      identity,
      identity,
      UNDECODABLE,
      new grpc.Metadata(),
      { deadline: Date.now() + 5000 },
      (e: grpc.ServiceError | null) => resolve(e),
    );
  });
  assert.equal(err?.code, grpc.status.INVALID_ARGUMENT);
  assert.match(err?.details ?? "", /^malformed request: /);
  assert.equal(controller.registry.size, 0);
});

test("a server-streaming request that does not decode is INVALID_ARGUMENT before the stream opens", async () => {
  const status = await new Promise<grpc.StatusObject>((resolve) => {
    const call = client.makeServerStreamRequest(
      "/svc.v1.EventService/Subscribe",
      identity,
      identity,
      UNDECODABLE,
      new grpc.Metadata(),
      { deadline: Date.now() + 5000 },
    );
    call.on("error", () => {});
    call.on("status", resolve);
  });
  assert.equal(status.code, grpc.status.INVALID_ARGUMENT);
  assert.match(status.details, /^malformed request: /);
  assert.equal(controller.events.subscribers, 0);
});
