/**
 * The metrics-query routes against the real prometheus binary (scraping itself): instant and range answers as
 * Prometheus gives them; 400 for a query Prometheus refuses, a reversed or over-maxRange range, too many points;
 * 502 over maxResponseBytes; 503 without prometheus.url; the anonymous per-address budget (429, in virtual time);
 * each built-in role, a token and an anonymous caller.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { freePort, type ManagedProcess, startPrometheus, stopProcess } from "@svc/lab";
import { eventually, needsBinary, skipUnless } from "../../../../test/helpers/env.ts";
import { startConsole, TestClock } from "../testing/harness.ts";
import { type LocalEnvs, localEnvs, w } from "../testing/local-env.ts";
import { roleCallers } from "../testing/role-callers.ts";

const PROM = "/usr/bin/prometheus";
const opts = skipUnless(needsBinary(PROM));
let proc: ManagedProcess | undefined;
let promUrl = "";
let dir = "";
let envs: LocalEnvs;

before(async () => {
  envs = await localEnvs();
  if (opts.skip) return;
  dir = mkdtempSync(join(tmpdir(), "svc-metrics-queries-"));
  const port = await freePort();
  const started = await startPrometheus({
    binary: PROM,
    dir,
    port,
    targets: [{ job: "self", targets: [`127.0.0.1:${port}`] }],
    intervalSeconds: 1,
  });
  proc = started.process;
  promUrl = started.url;
});
after(async () => {
  if (proc) await stopProcess(proc);
  if (dir) rmSync(dir, { recursive: true, force: true });
  await envs.close();
});

async function post(url: string, path: string, body: unknown) {
  const res = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

test("instant and range queries, refusals, limits, anonymous budget", opts, async () => {
  const clock = new TestClock(Date.now());
  const s = await startConsole(
    `auth:\n  anonymous:\n    role: viewer\nprometheus:\n  url: ${promUrl}\n  maxRange: 1h\n`,
    { clock },
  );
  const small = await startConsole(`prometheus:\n  url: ${promUrl}\n  maxResponseBytes: 64\n`);
  const none = await startConsole("");
  try {
    const up = await eventually(
      "self scraped",
      async () => {
        const r = await post(s.httpUrl, "/api/v1/metrics/query", { query: 'up{job="self"}' });
        return r.status === 200 && Array.isArray(r.body.result) && r.body.result.length === 1 ? r : undefined;
      },
      20_000,
    );
    assert.equal(up.body.resultType, "vector");
    const scalar = await post(s.httpUrl, "/api/v1/metrics/query", {
      query: "1+1",
      time: "2026-01-01T00:00:00Z",
    });
    assert.deepEqual(scalar.body, { resultType: "scalar", result: [1767225600, "2"] });
    const now = Date.now();
    const range = await post(s.httpUrl, "/api/v1/metrics/query_range", {
      query: "vector(1)",
      start: new Date(now - 60_000).toISOString(),
      end: new Date(now).toISOString(),
      stepSeconds: 15,
    });
    assert.equal(range.status, 200);
    assert.equal(range.body.resultType, "matrix");
    const iso = (t: number) => new Date(t).toISOString();
    const refused: [string, unknown, number][] = [
      ["/api/v1/metrics/query", { query: "up{" }, 400],
      ["/api/v1/metrics/query", { query: "" }, 400],
      ["/api/v1/metrics/query", { query: 5 }, 400],
      ["/api/v1/metrics/query", { query: "up", extra: 1 }, 400],
      ["/api/v1/metrics/query", { query: "x".repeat(16_385) }, 400],
      [
        "/api/v1/metrics/query_range",
        { query: "up", start: iso(now), end: iso(now - 1000), stepSeconds: 1 },
        400,
      ],
      [
        "/api/v1/metrics/query_range",
        { query: "up", start: iso(now - 7_200_000), end: iso(now), stepSeconds: 60 },
        400,
      ],
      [
        "/api/v1/metrics/query_range",
        { query: "up", start: iso(now - 3_600_000), end: iso(now), stepSeconds: 0.1 },
        400,
      ],
      [
        "/api/v1/metrics/query_range",
        { query: "up", start: "yesterday", end: iso(now), stepSeconds: 1 },
        400,
      ],
    ];
    for (const [path, body, want] of refused) {
      const r = await post(s.httpUrl, path, body);
      assert.equal(r.status, want, `${path} ${JSON.stringify(body).slice(0, 80)}: ${JSON.stringify(r.body)}`);
    }
    const big = await post(small.httpUrl, "/api/v1/metrics/query", { query: "prometheus_build_info" });
    assert.equal(big.status, 502);
    assert.match(JSON.stringify(big.body), /maxResponseBytes/);
    assert.equal((await post(none.httpUrl, "/api/v1/metrics/query", { query: "up" })).status, 503);
    assert.equal(
      (
        await post(none.httpUrl, "/api/v1/metrics/query_range", {
          query: "up",
          start: iso(now),
          end: iso(now),
          stepSeconds: 1,
        })
      ).status,
      503,
    );

    // anonymous budget: 60 per address per minute (the refusals above spent some too); the window is virtual
    clock.advance(61_000);
    for (let i = 0; i < 60; i++)
      assert.equal((await post(s.httpUrl, "/api/v1/metrics/query", { query: "1" })).status, 200);
    const limited = await post(s.httpUrl, "/api/v1/metrics/query", { query: "1" });
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get("retry-after")) > 0);
    clock.advance(60_000);
    assert.equal((await post(s.httpUrl, "/api/v1/metrics/query", { query: "1" })).status, 200);
  } finally {
    await Promise.all([s.stop(), small.stop(), none.stop()]);
  }
});

test("metrics queries: each built-in role, a token and an anonymous caller", opts, async () => {
  const e = await envs.env("local", `prometheus:\n  url: ${promUrl}\n`);
  try {
    const callers = await roleCallers(e);
    const want = { admin: 200, operator: 200, "alert-editor": 200, viewer: 200, token: 403, anonymous: 401 };
    const now = new Date().toISOString();
    for (const [who, code] of Object.entries(want)) {
      const c = callers[who];
      assert.ok(c);
      const h = who === "token" ? { authorization: "Bearer secret-1" } : undefined;
      const got = [
        (await w(c, "POST", "/api/v1/metrics/query", { query: "1" }, h)).status,
        (
          await w(
            c,
            "POST",
            "/api/v1/metrics/query_range",
            { query: "1", start: now, end: now, stepSeconds: 1 },
            h,
          )
        ).status,
      ];
      assert.deepEqual(got, [code, code], who);
    }
  } finally {
    await e.server.stop();
  }
});
