// Fidelity: udp and icmp loss over 1000 probes each against a 10 % loss injected with nftables (numgen random)
// on the router R1 of a 2-router path, IPv4 and IPv6 (issue 3: within ±3 points).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type NamespaceProcess, PathLab } from "@svc/lab";
import { needsRoot, skipUnless } from "../helpers/env.ts";

const opts = skipUnless(needsRoot());
const PROBE = "bench/fidelity/ns-probe.ts";
const INJECTED = 0.1;
let lab: PathLab;
let echo: NamespaceProcess<{ port: number }> | undefined;
let port = 0;

interface Loss {
  sent: number;
  received: number;
  lossRatio: number;
}

before(async () => {
  if (opts.skip) return;
  lab = await PathLab.create({ routers: 2, ipv6: true });
  echo = lab.spawnNode<{ port: number }>("B", "bench/fidelity/echo-in-ns.ts");
  port = (await echo.ready).port;
  // Only A -> B echo requests: the replies cross R1 unharmed, so the expected loss is exactly the injected one.
  await lab.loss("R1", INJECTED * 100, "icmp");
});
after(async () => {
  await echo?.stop();
  await lab?.destroy();
});

function assertLoss(what: string, r: Loss): void {
  assert.equal(r.sent, 1000, `${what}: sent ${r.sent}`);
  assert.ok(
    Math.abs(r.lossRatio - INJECTED) <= 0.03,
    `${what}: measured ${(r.lossRatio * 100).toFixed(1)} % vs injected ${INJECTED * 100} %`,
  );
}

for (const family of [4, 6] as const) {
  test(`udp loss over IPv${family}: 1000 datagrams to our echo server read 10 % ±3`, opts, async () => {
    const b = lab.address("B", family);
    await lab.loss("R1", INJECTED * 100, "udp", b);
    const r = await lab.runNode<Loss>("A", PROBE, ["udp-loss", b, String(port), "100", "10", "50"]);
    assertLoss(`udp v${family}`, r);
  });

  test(`icmp loss over IPv${family}: 1000 echo requests read 10 % ±3`, opts, async () => {
    const r = await lab.runNode<Loss>("A", PROBE, ["icmp-loss", lab.address("B", family), "1000", "2"]);
    assertLoss(`icmp v${family}`, r);
  });
}
