import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, describe, test } from "node:test";
import { promisify } from "node:util";
import { needsRoot, skipUnless } from "../helpers/env.ts";
import {
  alive,
  descendants,
  LAB_ARGS,
  type LabProcess,
  labLeftovers,
  labPid,
  SVC_BIN,
  startLab,
  until,
} from "./testdata/lab-process.ts";

const exec = promisify(execFile);
const started: LabProcess[] = [];

function lab(cmd: string, args: readonly string[]): LabProcess {
  const p = startLab(cmd, args);
  started.push(p);
  return p;
}
const svcLab = () => lab(process.execPath, [SVC_BIN, ...LAB_ARGS]);

/** Sends `signal` to `target` and waits until every process of the lab is gone and nothing of it is left. */
async function stopsClean(
  p: LabProcess,
  target: number,
  signal: NodeJS.Signals,
  index: number,
): Promise<void> {
  const pids = descendants(p.child.pid!);
  assert.ok(pids.length >= 3, `lab, controller and agent expected: ${pids}`);
  process.kill(target, signal);
  await until(
    () => `${signal}: processes left ${pids.filter(alive)}, leftovers ${labLeftovers(index)}\n${p.output()}`,
    () => pids.every((pid) => !alive(pid)) && labLeftovers(index).length === 0,
  );
}

after(async () => {
  // whatever a failed test left running: the wrapper and everything below it
  for (const p of started) {
    const pids = new Set([...p.tree(), ...descendants(p.child.pid!)]);
    for (const pid of [...pids].reverse()) if (alive(pid)) process.kill(pid, "SIGTERM");
  }
  await Promise.race([Promise.all(started.map((p) => p.exited)), new Promise((r) => setTimeout(r, 15_000))]);
  await exec(process.execPath, [SVC_BIN, "lab", "down"]).catch(() => undefined);
});

// Real `svc lab` processes (one agent in a network namespace, no Prometheus, no console: ~5 s each).
describe("svc lab: down and signals", { ...skipUnless(needsRoot()), timeout: 240_000 }, () => {
  test("`svc lab down` with two labs running, one killed: removes only the killed one's network", async () => {
    const a = svcLab();
    const b = svcLab();
    const [ia, ib] = await Promise.all([a.up, b.up]);
    assert.notEqual(ia, ib);
    const aPids = descendants(a.child.pid!);
    a.child.kill("SIGKILL"); // no cleanup: its network and state file stay behind
    await until(
      () => `lab ${ia}'s processes still running: ${aPids.filter(alive)}`,
      () => aPids.every((pid) => !alive(pid)),
    );
    assert.ok(labLeftovers(ia).includes(`bridge svcbr${ia}`), "the killed lab left its network");

    const down = await exec(process.execPath, [SVC_BIN, "lab", "down"], { timeout: 30_000 });
    assert.match(down.stdout, /removed \d+ stale lab network/);
    assert.match(down.stdout, new RegExp(`kept running lab\\(s\\): .*\\b${ib}\\b`));
    assert.deepEqual(labLeftovers(ia), [], "the killed lab is gone");
    assert.deepEqual(
      labLeftovers(ib).sort(),
      [`bridge svcbr${ib}`, `namespace svc${ib}-node-1`, `state lab-${ib}.json`].sort(),
      "the running lab keeps its network and state",
    );
    assert.ok(descendants(b.child.pid!).every(alive), "the running lab's processes are untouched");
    const status = await fetch(`${/controller API +(\S+)\/api/.exec(b.output())?.[1]}/readyz`);
    assert.equal(status.status, 200, "its controller still answers");

    // a hangup as when the terminal closes: nobody reads the lab's output any more, its writes fail
    b.child.stdout?.destroy();
    b.child.stderr?.destroy();
    await stopsClean(b, b.child.pid!, "SIGHUP", ib);
  });

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    test(`${signal} to svc stops the lab and removes everything`, async () => {
      const p = svcLab();
      await stopsClean(p, p.child.pid!, signal, await p.up);
      assert.match(p.output(), /lab: stopped, nothing left running/);
    });
  }

  test("SIGTERM while the lab is still starting stops it and removes what it made", async () => {
    const p = svcLab();
    await until(
      () => `no bridge line\n${p.output()}`,
      () => /bridge svcbr(\d+)/.test(p.output()),
    );
    const index = Number(/bridge svcbr(\d+)/.exec(p.output())?.[1]);
    const pid = p.child.pid!;
    process.kill(pid, "SIGTERM");
    await p.exited;
    await until(
      () => `leftovers ${labLeftovers(index)}, processes ${descendants(pid).filter(alive)}\n${p.output()}`,
      () => labLeftovers(index).length === 0,
    );
    assert.equal(p.child.exitCode, 0, p.output());
    assert.doesNotMatch(p.output(), /is up/);
  });

  test("SIGTERM to `npm run svc -- lab` (npm, then sh, then svc) stops the lab and removes everything", async () => {
    const p = lab("npm", ["run", "svc", "--", ...LAB_ARGS]);
    const index = await p.up;
    labPid(p.child.pid!); // the lab runs below the wrapper
    await stopsClean(p, p.child.pid!, "SIGTERM", index);
  });

  test("SIGHUP to `npx svc lab` stops the lab and removes everything", async () => {
    const p = lab("npx", ["svc", ...LAB_ARGS]);
    const index = await p.up;
    labPid(p.child.pid!);
    await stopsClean(p, p.child.pid!, "SIGHUP", index);
  });
});
