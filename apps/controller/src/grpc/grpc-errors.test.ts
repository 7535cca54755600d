import assert from "node:assert/strict";
import { test } from "node:test";
import { grpc } from "@svc/protocol";
import { ForbiddenError, InvalidInputError, NotFoundError, NotLeaderError, TimeoutError } from "../errors.ts";
import { GRPC_STATUS, streamHandler, toServiceError, unaryHandler } from "./grpc-errors.ts";

test("controller errors map through the one table; anything else is INTERNAL without its message", () => {
  const cases: [Error, grpc.status][] = [
    [new InvalidInputError("agent_id: required"), grpc.status.INVALID_ARGUMENT],
    [new NotFoundError("no pending task t1"), grpc.status.NOT_FOUND],
    [new ForbiddenError("in-cluster agent"), grpc.status.PERMISSION_DENIED],
    [new NotLeaderError(), grpc.status.UNAVAILABLE],
    [new TimeoutError("slow"), grpc.status.DEADLINE_EXCEEDED],
  ];
  for (const [err, code] of cases) {
    const e = toServiceError(err);
    assert.equal(e.code, code, err.name);
    assert.equal(e.details, err.message);
  }
  assert.equal(GRPC_STATUS.not_leader, grpc.status.UNAVAILABLE);
  const bug = toServiceError(new TypeError("x is undefined"));
  assert.equal(bug.code, grpc.status.INTERNAL);
  assert.equal(bug.details, "internal error");
});

test("unaryHandler answers the return value, or the mapped status of a throw or a rejection", async () => {
  const answers: [grpc.ServiceError | null, unknown][] = [];
  const run = (h: grpc.handleUnaryCall<string, string>, req: string) =>
    new Promise<void>((resolve) => {
      h({ request: req } as grpc.ServerUnaryCall<string, string>, (err, value) => {
        answers.push([err as grpc.ServiceError | null, value]);
        resolve();
      });
    });
  await run(
    unaryHandler<string, string>((call) => {
      if (call.request === "") throw new InvalidInputError("empty");
      return call.request.toUpperCase();
    }),
    "ok",
  );
  await run(
    unaryHandler<string, string>(() => {
      throw new InvalidInputError("empty");
    }),
    "",
  );
  await run(
    unaryHandler<string, string>(async () => {
      throw new NotFoundError("gone");
    }),
    "x",
  );
  assert.deepEqual(answers[0], [null, "OK"]);
  assert.equal(answers[1]?.[0]?.code, grpc.status.INVALID_ARGUMENT);
  assert.equal(answers[2]?.[0]?.code, grpc.status.NOT_FOUND);
});

test("streamHandler ends the call with the mapped status when set-up throws", () => {
  const emitted: grpc.ServiceError[] = [];
  const call = { emit: (_: string, e: grpc.ServiceError) => emitted.push(e) };
  streamHandler<string, string>(() => {
    throw new NotLeaderError();
  })(call as unknown as grpc.ServerWritableStream<string, string>);
  assert.equal(emitted[0]?.code, grpc.status.UNAVAILABLE);
  assert.equal(emitted[0]?.details, "not the leader");
});
