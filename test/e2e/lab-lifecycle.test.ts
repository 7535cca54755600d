import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { promisify } from "node:util";
import { bridgeIfindex, createBridge, destroyNetwork } from "@svc/lab";
import { needsRoot, skipUnless } from "../helpers/env.ts";
import {
  alive,
  descendants,
  LAB_ARGS,
  type LabProcess,
  labIdentity,
  labPid,
  leftoversOf,
  REPO,
  SVC_BIN,
  startLab,
  until,
} from "./testdata/lab-process.ts";

const exec = promisify(execFile);
const started: LabProcess[] = [];

function lab(cmd: string, args: readonly string[], env?: NodeJS.ProcessEnv): LabProcess {
  const p = startLab(cmd, args, undefined, env);
  started.push(p);
  return p;
}
/** `svc lab`; with `stateDir`, its state file goes there (SVC_LAB_STATE_DIR), out of other suites' `svc lab down`. */
const svcLab = (stateDir?: string) =>
  lab(
    process.execPath,
    [SVC_BIN, ...LAB_ARGS],
    stateDir === undefined ? undefined : { ...process.env, SVC_LAB_STATE_DIR: stateDir },
  );

/**
 * Sends `signal` to `target` and waits until every process of the lab is gone and nothing of it is left (judged by
 * the lab's identity: another suite may start a lab on the same index meanwhile).
 */
async function stopsClean(
  p: LabProcess,
  target: number,
  signal: NodeJS.Signals,
  index: number,
  stateDir?: string,
): Promise<void> {
  const pids = descendants(p.child.pid!);
  assert.ok(pids.length >= 3, `lab, controller and agent expected: ${pids}`);
  const id = labIdentity(index, stateDir);
  process.kill(target, signal);
  await until(
    () => `${signal}: processes left ${pids.filter(alive)}, leftovers ${leftoversOf(id)}\n${p.output()}`,
    () => pids.every((pid) => !alive(pid)) && leftoversOf(id).length === 0,
  );
}

/** `svc lab down` with the state directory `stateDir`; its stdout. */
async function labDown(stateDir?: string): Promise<string> {
  const env = stateDir === undefined ? process.env : { ...process.env, SVC_LAB_STATE_DIR: stateDir };
  return (await exec(process.execPath, [SVC_BIN, "lab", "down"], { timeout: 30_000, env })).stdout;
}

/** A pid whose process has ended. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  const pid = child.pid!;
  await new Promise((r) => child.once("exit", r));
  return pid;
}

after(async () => {
  // whatever a failed test left running: the wrapper and everything below it
  for (const p of started) {
    const pids = new Set([...p.tree(), ...descendants(p.child.pid!)]);
    for (const pid of [...pids].reverse()) if (alive(pid)) process.kill(pid, "SIGTERM");
  }
  await Promise.race([Promise.all(started.map((p) => p.exited)), new Promise((r) => setTimeout(r, 15_000))]);
  await exec(process.execPath, [SVC_BIN, "lab", "down"]).catch(() => undefined);
  for (const p of started) rmSync(p.tmp, { recursive: true, force: true });
});

// Real `svc lab` processes (one agent in a network namespace, no Prometheus, no console: ~5 s each).
describe("svc lab: down and signals", { ...skipUnless(needsRoot()), timeout: 240_000 }, () => {
  test("`svc lab down` with two labs running, one killed: removes only the killed one's network", async () => {
    // both labs and `svc lab down` on a state directory of this test's own: a suite beside this one runs `svc lab
    // down` on the default one, which leaves networks no state file of its names alone (it removed the killed lab
    // here before this test could see what the kill left)
    const dir = mkdtempSync(join(tmpdir(), "svc-lab-state-"));
    try {
      const a = svcLab(dir);
      const b = svcLab(dir);
      const [ia, ib] = await Promise.all([a.up, b.up]);
      assert.notEqual(ia, ib);
      // each lab judged by what it made (its process, bridge ifindex, namespace inodes), not by its index
      const idA = labIdentity(ia, dir);
      const idB = labIdentity(ib, dir);
      assert.equal(idA.pid, labPid(a.child.pid!));
      const aPids = descendants(a.child.pid!);
      a.child.kill("SIGKILL"); // no cleanup: its network and state file stay behind
      await until(
        () => `lab ${ia}'s processes still running: ${aPids.filter(alive)}`,
        () => aPids.every((pid) => !alive(pid)),
      );
      assert.ok(leftoversOf(idA).includes(`bridge svcbr${ia}`), "the killed lab left its network");

      const down = await labDown(dir);
      assert.match(down, new RegExp(`removed 1 stale lab network\\(s\\): ${ia}\\b`));
      assert.match(down, new RegExp(`kept running lab\\(s\\): .*\\b${ib}\\b`));
      assert.deepEqual(leftoversOf(idA), [], "the killed lab is gone");
      assert.deepEqual(
        leftoversOf(idB).sort(),
        [`bridge svcbr${ib}`, `namespace svc${ib}-node-1`, `state lab-${ib}.json`].sort(),
        "the running lab keeps its network and state",
      );
      assert.ok(descendants(b.child.pid!).every(alive), "the running lab's processes are untouched");
      const status = await fetch(`${/controller API +(\S+)\/api/.exec(b.output())?.[1]}/readyz`);
      assert.equal(status.status, 200, "its controller still answers");

      // a hangup as when the terminal closes: nobody reads the lab's output any more, its writes fail
      b.child.stdout?.destroy();
      b.child.stderr?.destroy();
      await stopsClean(b, b.child.pid!, "SIGHUP", ib, dir);
    } finally {
      // what a failure left of this directory's labs (the file's after hook stops the processes)
      await labDown(dir).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("`svc lab down` leaves alone what no state file names, and a dead lab's index another bridge now holds", async () => {
    // a bridge as a lab has it between creating it and writing its state (or a test's, or another state dir's)
    const index = await createBridge();
    const ifindex = bridgeIfindex(index);
    const dir = mkdtempSync(join(tmpdir(), "svc-lab-state-"));
    try {
      assert.ok(ifindex !== undefined);
      const first = await labDown(dir);
      assert.match(first, /removed 0 stale lab network/);
      assert.match(first, /^left alone, no lab state file names them .*`svc lab down --all` removes them:$/m);
      assert.match(first, new RegExp(`^  bridge svcbr${index}$`, "m"));
      assert.equal(bridgeIfindex(index), ifindex, "the bridge no state file names stays");

      // a gone lab's state under that index, but the bridge there is not the one it made
      const file = join(dir, `lab-${index}.json`);
      const gone = (bridge: number) => ({
        pid: 0,
        pidStart: "1",
        index,
        bridgeIfindex: bridge,
        dir,
        netns: true,
        controllerUrl: "",
        nodes: [],
      });
      writeFileSync(file, JSON.stringify({ ...gone(ifindex + 1_000_000), pid: await deadPid() }));
      const second = await labDown(dir);
      assert.match(second, /removed 0 stale lab network/);
      assert.match(
        second,
        new RegExp(`removed the state of gone lab\\(s\\) whose network was already gone: ${index}\\b`),
      );
      assert.equal(bridgeIfindex(index), ifindex, "a bridge made after the gone lab's stays");
      assert.ok(!existsSync(file), "the gone lab's state file is removed");

      // its own bridge, its process gone: removed
      writeFileSync(file, JSON.stringify({ ...gone(ifindex), pid: await deadPid() }));
      const third = await labDown(dir);
      assert.match(third, new RegExp(`removed 1 stale lab network\\(s\\): ${index}\\b`));
      assert.equal(bridgeIfindex(index), undefined, "the gone lab's own bridge is removed");
      assert.ok(!existsSync(file));
    } finally {
      // only while it is still ours: once `svc lab down` removed it, another suite's lab may have made its own
      // bridge under the same name (deleting that one broke its start: "Cannot find device svcbr1")
      if (ifindex !== undefined && bridgeIfindex(index) === ifindex) await destroyNetwork(index, []);
      rmSync(dir, { recursive: true, force: true });
    }
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
    const id = labIdentity(index); // the state is written before that line
    const pid = p.child.pid!;
    process.kill(pid, "SIGTERM");
    await p.exited;
    await until(
      () => `leftovers ${leftoversOf(id)}, processes ${descendants(pid).filter(alive)}\n${p.output()}`,
      () => leftoversOf(id).length === 0,
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

  test("a lab a script starts in the background (nohup npx svc lab &) keeps running after the script exits", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-lab-script-"));
    const log = join(dir, "lab.log");
    const script = join(dir, "start-lab.sh");
    // the way a user backgrounds it from a script: start it, wait until it is up, go on, end (its shell with it)
    writeFileSync(
      script,
      [
        `cd ${JSON.stringify(REPO)}`,
        `nohup npx svc ${LAB_ARGS.join(" ")} > ${JSON.stringify(log)} 2>&1 &`,
        "echo $!",
        `until grep -q "is up" ${JSON.stringify(log)}; do sleep 0.2; done`,
        "",
      ].join("\n"),
    );
    let wrapper = 0;
    try {
      const out = await exec("sh", [script], { timeout: 90_000, env: { ...process.env, TMPDIR: dir } });
      wrapper = Number(out.stdout.trim());
      assert.ok(wrapper > 1, out.stdout);
      const logText = () => (existsSync(log) ? readFileSync(log, "utf8") : "");
      await until(
        () => `not up:\n${logText()}`,
        () => /svc lab (\d+) is up/.test(logText()),
        60_000,
      );
      const index = Number(/svc lab (\d+) is up/.exec(logText())?.[1]);
      const pids = descendants(wrapper);
      const controller = /controller API +(\S+)\/api/.exec(logText())?.[1];
      // the script's shell is gone; the lab (polling its wrappers every 500 ms) must not take that for a stop
      await new Promise((r) => setTimeout(r, 3000));
      assert.ok(
        pids.every(alive),
        `the lab stopped when the script ended: ${pids.filter((p) => !alive(p))} gone\n${logText()}`,
      );
      assert.doesNotMatch(logText(), /stopping/);
      assert.equal((await fetch(`${controller}/readyz`)).status, 200, "its controller still answers");
      // stopped cleanly as a backgrounded lab is: SIGTERM to it
      const id = labIdentity(index);
      process.kill(labPid(wrapper), "SIGTERM");
      await until(
        () => `processes left ${pids.filter(alive)}, leftovers ${leftoversOf(id)}\n${logText()}`,
        () => pids.every((pid) => !alive(pid)) && leftoversOf(id).length === 0,
      );
      assert.match(logText(), /lab: stopped, nothing left running/);
    } finally {
      if (wrapper > 1)
        for (const pid of descendants(wrapper).reverse()) if (alive(pid)) process.kill(pid, "SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("SIGHUP to `npx svc lab` stops the lab and removes everything", async () => {
    const p = lab("npx", ["svc", ...LAB_ARGS]);
    const index = await p.up;
    labPid(p.child.pid!);
    await stopsClean(p, p.child.pid!, "SIGHUP", index);
  });
});
