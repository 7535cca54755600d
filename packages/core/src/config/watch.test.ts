import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { createLogger, type Logger } from "../log/logger.ts";
import type { Component } from "./live.ts";
import { loadConfig } from "./load.ts";
import type { SvcConfig } from "./types.ts";
import { ConfigWatcher } from "./watch.ts";

interface Harness {
  path: string;
  watcher: ConfigWatcher;
  applied: { next: SvcConfig; keys: string[] }[];
  logs: Record<string, unknown>[];
  logger: Logger;
  nextApply: () => Promise<{ next: SvcConfig; keys: string[] }>;
}

function harness(component: Component, initial: string, path?: string): Harness {
  const file = path ?? join(mkdtempSync(join(tmpdir(), "svc-watch-")), "config.yaml");
  if (!path) writeFileSync(file, initial);
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: "info",
    format: "json",
    sink: { write: (s: string) => logs.push(JSON.parse(s) as Record<string, unknown>) },
  });
  const applied: { next: SvcConfig; keys: string[] }[] = [];
  let waiter: ((v: { next: SvcConfig; keys: string[] }) => void) | undefined;
  const current = loadConfig({ path: file, env: {}, hostname: "h" }).config;
  const watcher = new ConfigWatcher({
    path: file,
    env: {},
    hostname: "h",
    component,
    current,
    logger,
    onApply: (next, keys) => {
      applied.push({ next, keys });
      waiter?.({ next, keys });
    },
  });
  const nextApply = () =>
    new Promise<{ next: SvcConfig; keys: string[] }>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error("no reload applied within 10s")), 10_000);
      waiter = (v) => {
        clearTimeout(t);
        resolve(v);
      };
    });
  return { path: file, watcher, applied, logs, logger, nextApply };
}

test("agent: a live key is applied and onApply gets the new value", async () => {
  const h = harness("agent", "checkers:\n  udp:\n    packets: 5\n");
  writeFileSync(h.path, "checkers:\n  udp:\n    packets: 7\n  tcp:\n    interval: 2s\n");
  const out = await h.watcher.reload();
  assert.deepEqual(out, {
    status: "applied",
    applied: ["checkers.tcp.interval", "checkers.udp.packets"],
    needsRestart: [],
    issues: [],
  });
  assert.equal(h.applied.length, 1);
  assert.equal(h.applied[0]?.next.checkers.udp.packets, 7);
  assert.equal(h.applied[0]?.next.checkers.tcp.interval, 2000);
  assert.ok(Object.isFrozen(h.applied[0]?.next));
  assert.equal(h.watcher.current.checkers.udp.packets, 7);
  assert.deepEqual(await h.watcher.reload(), {
    status: "unchanged",
    applied: [],
    needsRestart: [],
    issues: [],
  });
});

test("restart-only keys are logged as needing a restart and keep their running value", async () => {
  const h = harness("agent", "httpPort: 8080\nlogLevel: info\n");
  writeFileSync(h.path, "httpPort: 8081\nlogLevel: DEBUG\nagent:\n  zone: z2\n");
  const out = await h.watcher.reload();
  assert.equal(out.status, "applied");
  assert.deepEqual(out.applied, ["logLevel"]);
  assert.deepEqual(out.needsRestart, ["agent.zone", "httpPort"]);
  const next = h.applied[0]?.next;
  assert.equal(next?.logLevel, "debug");
  assert.equal(next?.httpPort, 8080, "restart key keeps the running value");
  assert.equal(next?.agent.zone, "");
  assert.equal(h.logger.level, "debug", "the watcher applies logLevel to its logger");
  const warn = h.logs.find((l) => l.level === "warn");
  assert.deepEqual(warn?.keys, ["agent.zone", "httpPort"]);
  assert.match(String(warn?.msg), /need a restart.*agent\.zone, httpPort/);

  writeFileSync(h.path, "httpPort: 8082\nlogLevel: debug\n");
  const only = await h.watcher.reload();
  assert.deepEqual(only, { status: "unchanged", applied: [], needsRestart: ["httpPort"], issues: [] });
  assert.equal(h.applied.length, 1, "onApply not called for restart-only changes");
});

test("controller: its own live set applies, agent-only checker keys need a restart", async () => {
  const h = harness("controller", "");
  writeFileSync(
    h.path,
    "topology:\n  mode: sparse\ncontroller:\n  agentTtl: 45s\n  leaderElection: false\n" +
      "checkers:\n  udp: { packets: 9 }\n  external: { enabled: true, allowedCidrs: [198.18.0.0/15], maxTargets: 5 }\n",
  );
  const out = await h.watcher.reload();
  assert.deepEqual(out.applied, [
    "checkers.external.allowedCidrs",
    "checkers.external.enabled",
    "controller.agentTtl",
    "topology.mode",
  ]);
  assert.deepEqual(out.needsRestart, [
    "checkers.external.maxTargets",
    "checkers.udp.packets",
    "controller.leaderElection",
  ]);
  const next = h.applied[0]?.next;
  assert.equal(next?.controller.agentTtl, 45_000);
  assert.deepEqual(next?.checkers.external.allowedCidrs, ["198.18.0.0/15"]);
  assert.equal(next?.checkers.external.maxTargets, 100);
  assert.equal(next?.controller.leaderElection, true);
});

test("a broken reload is rejected with all issues logged and the old config kept", async () => {
  const h = harness("agent", "checkers:\n  udp:\n    packets: 5\n");
  const before = h.watcher.current;
  writeFileSync(h.path, "checkers:\n  udp:\n    packets: 0\n    pakets: 1\n");
  const out = await h.watcher.reload();
  assert.equal(out.status, "rejected");
  assert.deepEqual(out.issues, [
    "checkers.udp.packets: must be 1-100, got 0",
    "checkers.udp.pakets: unknown key",
  ]);
  assert.equal(h.applied.length, 0);
  assert.equal(h.watcher.current, before);
  const err = h.logs.find((l) => l.level === "error");
  assert.deepEqual(err?.issues, out.issues);

  writeFileSync(h.path, "checkers: [");
  assert.equal((await h.watcher.reload()).status, "rejected");
  writeFileSync(h.path, "checkers:\n  udp:\n    packets: 6\n");
  assert.equal((await h.watcher.reload()).status, "applied");
  assert.equal(h.watcher.current.checkers.udp.packets, 6);
});

test("onApply failing rejects the reload and keeps the running config", async () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-watch-"));
  const path = join(dir, "config.yaml");
  writeFileSync(path, "");
  const current = loadConfig({ path, env: {} }).config;
  const logger = createLogger({ level: "error", format: "json", sink: { write: () => true } });
  const watcher = new ConfigWatcher({
    path,
    env: {},
    component: "agent",
    current,
    logger,
    onApply: () => {
      throw new Error("cannot");
    },
  });
  writeFileSync(path, "checkers:\n  tcp:\n    enabled: false\n");
  const out = await watcher.reload();
  assert.deepEqual(out.issues, ["apply failed: cannot"]);
  assert.equal(out.status, "rejected");
  assert.equal(watcher.current, current);
});

test("the watcher picks up an atomic replace (write temp + rename)", async () => {
  const h = harness("agent", "checkers:\n  udp:\n    packets: 5\n");
  h.watcher.start();
  try {
    const applied = h.nextApply();
    const tmp = `${h.path}.tmp`;
    writeFileSync(tmp, "checkers:\n  udp:\n    packets: 11\n");
    renameSync(tmp, h.path);
    const { next, keys } = await applied;
    assert.deepEqual(keys, ["checkers.udp.packets"]);
    assert.equal(next.checkers.udp.packets, 11);
  } finally {
    h.watcher.stop();
  }
});

test("the watcher picks up a Kubernetes ConfigMap symlink swap", async () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-watch-cm-"));
  mkdirSync(join(dir, "..v1"));
  writeFileSync(join(dir, "..v1", "config.yaml"), "logLevel: info\n");
  symlinkSync("..v1", join(dir, "..data"));
  symlinkSync(join("..data", "config.yaml"), join(dir, "config.yaml"));
  const h = harness("agent", "", join(dir, "config.yaml"));
  h.watcher.start();
  try {
    const applied = h.nextApply();
    mkdirSync(join(dir, "..v2"));
    writeFileSync(join(dir, "..v2", "config.yaml"), "logLevel: warn\n");
    symlinkSync("..v2", join(dir, "..data_tmp"));
    renameSync(join(dir, "..data_tmp"), join(dir, "..data"));
    const { next, keys } = await applied;
    assert.deepEqual(keys, ["logLevel"]);
    assert.equal(next.logLevel, "warn");
  } finally {
    h.watcher.stop();
  }
});
