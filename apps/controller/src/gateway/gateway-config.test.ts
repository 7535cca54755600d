import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ConfigError, parseConfig } from "@svc/core";
import { ExternalGateway } from "./external-gateway.ts";
import { type ExternalGatewayConfig, GatewayConfigError } from "./gateway-config.ts";
import { gatewayConfig } from "./testdata/gateway-rig.ts";
import { TestPki } from "./testdata/test-pki.ts";

describe("external gateway startup", () => {
  let pki: TestPki;
  let good: ExternalGatewayConfig;
  before(() => {
    pki = new TestPki();
    good = gatewayConfig(pki, { clientCa: true });
  });
  after(() => pki.remove());

  async function startFails(cfg: ExternalGatewayConfig): Promise<GatewayConfigError> {
    const gw = new ExternalGateway({ config: cfg, services: [], host: "127.0.0.1" });
    try {
      await gw.start();
    } catch (err) {
      assert.ok(err instanceof GatewayConfigError, String(err));
      return err;
    } finally {
      await gw.stop();
    }
    assert.fail("start() succeeded");
  }

  const P = "controller.externalGateway";
  for (const [key, edit] of [
    [`${P}.tls.certFile`, (c: ExternalGatewayConfig) => ({ ...c, tls: { ...c.tls, certFile: "" } })],
    [`${P}.tls.keyFile`, (c: ExternalGatewayConfig) => ({ ...c, tls: { ...c.tls, keyFile: "" } })],
    [`${P}.bootstrapTokenFile`, (c: ExternalGatewayConfig) => ({ ...c, bootstrapTokenFile: "" })],
  ] as const) {
    test(`an enabled gateway without ${key} fails naming the key`, async () => {
      const err = await startFails(edit(good));
      assert.equal(err.key, key);
      assert.match(err.message, new RegExp(`^${key.replaceAll(".", "\\.")}: required`));
    });
  }

  test("unreadable files fail naming the key and the path", async () => {
    const missing = `${pki.dir}/nope.pem`;
    for (const [key, cfg] of [
      [`${P}.tls.certFile`, { ...good, tls: { ...good.tls, certFile: missing } }],
      [`${P}.tls.keyFile`, { ...good, tls: { ...good.tls, keyFile: missing } }],
      [`${P}.tls.clientCaFile`, { ...good, tls: { ...good.tls, clientCaFile: missing } }],
      [`${P}.bootstrapTokenFile`, { ...good, bootstrapTokenFile: missing }],
    ] as const) {
      const err = await startFails(cfg);
      assert.equal(err.key, key);
      assert.ok(err.message.includes(missing) && err.message.includes("ENOENT"), err.message);
    }
  });

  test("a token shorter than 16 characters (after trimming) fails without revealing it", async () => {
    const err = await startFails({ ...good, bootstrapTokenFile: pki.file("short", "  fifteen-chars!!  \n") });
    assert.equal(err.key, `${P}.bootstrapTokenFile`);
    assert.match(err.message, /at least 16 characters, got 15/);
    assert.ok(!err.message.includes("fifteen-chars!!"));
  });

  test("a token of exactly 16 characters starts; a disabled gateway binds nothing", async () => {
    const gw = new ExternalGateway({
      config: { ...good, bootstrapTokenFile: pki.file("sixteen", "0123456789abcdef") },
      services: [],
      host: "127.0.0.1",
    });
    assert.ok((await gw.start()) > 0);
    await gw.stop();
    const off = new ExternalGateway({
      config: { ...good, enabled: false, tls: { certFile: "", keyFile: "", clientCaFile: "" } },
      services: [],
    });
    assert.equal(await off.start(), 0);
    assert.equal(off.port, 0);
  });

  test("the config loader refuses an enabled gateway without its files, naming every key", () => {
    const yaml = "controller:\n  externalGateway:\n    enabled: true\n";
    assert.throws(
      () => parseConfig(yaml, {}, "host-a"),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        for (const k of ["tls.certFile", "tls.keyFile", "bootstrapTokenFile"]) {
          assert.ok(
            err.issues.some((i) => i.startsWith(`${P}.${k}:`)),
            `${k} in ${err.issues.join("; ")}`,
          );
        }
        return true;
      },
    );
  });
});
