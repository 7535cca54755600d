import assert from "node:assert/strict";
import { test } from "node:test";
import { needsRoot, skipUnless } from "../../../../test/helpers/env.ts";
import { run } from "../exec.ts";
import { parsePathFault, pathLabCommand } from "./path-command.ts";
import { PathLab } from "./path-lab.ts";
import { parseTracepath } from "./reference-tools.ts";

test("path fault words parse, and bad ones say how to use them", () => {
  assert.deepEqual(parsePathFault(["mtu", "R1-B", "1400"]), { kind: "mtu", link: "R1-B", bytes: 1400 });
  assert.deepEqual(parsePathFault(["blackhole", "R1", "off"]), {
    kind: "blackhole",
    router: "R1",
    on: false,
  });
  assert.deepEqual(parsePathFault(["silence", "R2"]), { kind: "silence", router: "R2", on: true });
  assert.deepEqual(parsePathFault(["hoploss", "R1", "30"]), { kind: "hoploss", router: "R1", percent: 30 });
  assert.deepEqual(parsePathFault(["loss", "R1", "10", "udp", "198.19.1.2"]), {
    kind: "loss",
    hop: "R1",
    percent: 10,
    protocol: "udp",
    to: "198.19.1.2",
  });
  assert.throws(() => parsePathFault(["loss", "R1", "200"]), /PERCENT 0-100/);
  assert.throws(() => parsePathFault(["loss", "R1", "10", "sctp"]), /protocol must be one of/);
  assert.throws(() => parsePathFault(["blackhole", "R1", "maybe"]), /usage: blackhole ROUTER \[off\]/);
  assert.throws(() => parsePathFault(["flap"]), /unknown path fault "flap"/);
});

test(
  "svc lab path up / fault / heal / down work across separate handles",
  skipUnless(needsRoot()),
  async () => {
    const out: string[] = [];
    await pathLabCommand(["up", "--routers", "1", "--mtu", "1500,1400", "--ipv6"], (l) => out.push(l));
    const index = Number(/^path lab (\d+):/.exec(out[0] ?? "")?.[1]);
    assert.ok(Number.isInteger(index), out.join("\n"));
    const cmd = (...words: string[]) =>
      pathLabCommand([words[0] ?? "", String(index), ...words.slice(1)], () => {});
    try {
      const lab = await PathLab.attach(index);
      assert.deepEqual([lab.routers, lab.ipv6, lab.links.map((l) => l.mtu)], [1, true, [1500, 1400]]);
      const trace = async () =>
        parseTracepath((await lab.exec("A", "tracepath", ["-n", lab.address("B")])).stdout);

      await cmd("fault", "mtu", "R1-B", "1300");
      assert.deepEqual(
        (await PathLab.attach(index)).links.map((l) => l.mtu),
        [1500, 1300],
      );
      assert.equal((await trace()).pmtu, 1300);
      await cmd("fault", "silence", "R1");
      const silent = await lab.exec("A", "tracepath", ["-n", "-m", "3", lab.address("B")]);
      assert.equal(parseTracepath(silent.stdout).hops[0]?.ip, "");

      await cmd("heal");
      await lab.flushPmtu();
      const healed = await trace();
      assert.equal(healed.pmtu, 1400, "heal restores the MTU the link was created with");
      assert.deepEqual(
        healed.hops.map((h) => h.ip),
        lab.expectedTrace(4),
      );
    } finally {
      await cmd("down");
    }
    const { stdout } = await run("ip", ["netns", "list"]);
    assert.doesNotMatch(stdout, new RegExp(`svcp${index}-`));
  },
);
