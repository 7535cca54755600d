import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { GENERATED_DIR, generateProto, listFiles, REPO_ROOT } from "./codegen.ts";
import { proto } from "./grpc.ts";

test("the committed generated code is what svc.proto generates (else run `npm run gen:proto`)", () => {
  const tmp = mkdtempSync(join(tmpdir(), "svc-gen-proto-"));
  try {
    const want = generateProto(tmp);
    assert.ok(want.length > 0, "buf generated nothing");
    const fresh = join(tmp, GENERATED_DIR);
    const committed = join(REPO_ROOT, GENERATED_DIR);
    const have = listFiles(committed);
    for (const f of want) {
      assert.ok(have.includes(f), `${GENERATED_DIR}/${f} is missing: run \`npm run gen:proto\``);
      const same = readFileSync(join(fresh, f)).equals(readFileSync(join(committed, f)));
      assert.ok(
        same,
        `${GENERATED_DIR}/${f} differs from what svc.proto generates: run \`npm run gen:proto\``,
      );
    }
    for (const f of have) {
      assert.ok(want.includes(f), `${GENERATED_DIR}/${f} is no longer generated from svc.proto: delete it`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("64-bit fields decode to numbers beyond 2^53 (nanosecond timestamps), as proto-loader's longs: Number did", () => {
  const at = Date.UTC(2026, 0, 1) * 1_000_000;
  const e = proto.Event.decode(
    proto.Event.encode(proto.Event.fromPartial({ timestamp_unix_ns: at, seq: 3 })).finish(),
  );
  assert.equal(e.timestamp_unix_ns, at);
  assert.equal(e.seq, 3);
  assert.equal(e.payload_json, "", "unset fields read as their zero value");
});
