// `svc lab` flags that choose the metrics backend (issue 35): a bad choice is refused before anything starts, and
// the choice reaches the lab's options and `svc lab status`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseArgs, UsageError } from "./args.ts";
import { labCommand, statusText, svcLabOptions } from "./lab-command.ts";

test("--metrics takes prometheus or victoria-metrics; not with --no-prometheus", async () => {
  await assert.rejects(
    labCommand(parseArgs(["lab", "--metrics", "influx"])),
    (e: Error) =>
      e instanceof UsageError &&
      /--metrics must be prometheus or victoria-metrics, got "influx"/.test(e.message),
  );
  await assert.rejects(
    labCommand(parseArgs(["lab", "--metrics", "victoria-metrics", "--no-prometheus"])),
    (e: Error) => e instanceof UsageError && /exclude each other/.test(e.message),
  );
});

test("the lab's options carry the backend; status names victoria-metrics and vmalert", () => {
  const base = { agents: 3, netns: false, prometheus: true, console: false };
  assert.equal(svcLabOptions({ ...base, metrics: "victoria-metrics" }).metrics, "victoria-metrics");
  assert.equal(svcLabOptions(base).metrics, undefined);
  const state = {
    pid: 1,
    index: 7,
    dir: "/tmp/x",
    netns: false,
    controllerUrl: "http://127.0.0.1:1",
    prometheusUrl: "http://127.0.0.1:2",
    evaluatorUrl: "http://127.0.0.1:3",
    nodes: [],
  };
  assert.match(statusText(state), /metrics http:\/\/127\.0\.0\.1:2 {3}vmalert http:\/\/127\.0\.0\.1:3/);
  assert.match(statusText({ ...state, evaluatorUrl: undefined }), /prometheus http:\/\/127\.0\.0\.1:2$/m);
});
