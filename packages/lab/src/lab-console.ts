import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { httpOk, type ManagedProcess, startProcess, stopProcess, waitFor } from "./processes.ts";

/** Where the lab's console runs and what it is wired to. */
export interface LabConsoleOptions {
  /** the `svc` command (apps/cli/bin/svc.mjs) */
  svcBin: string;
  /** the lab directory: the console's config, log, database and secrets go there */
  dir: string;
  controllerHttpPort: number;
  controllerGrpcPort: number;
  httpPort: number;
  metricsPort: number;
  /** the lab's Prometheus, when it runs */
  prometheusUrl?: string;
  /** the rule evaluator when it is not the query endpoint (the lab's vmalert) */
  evaluatorUrl?: string;
  /** the directory the console writes its alert rule file into and the lab's Prometheus loads */
  ruleDirectory: string;
  /** the console's `webhooks.alertPollInterval` (default: the console's own) */
  alertPollInterval?: string;
  signal: AbortSignal;
}

/** The lab's console once it answers /readyz. */
export interface LabConsole {
  process: ManagedProcess;
  url: string;
  admin: { username: string; password: string };
}

/**
 * Starts the console on PGlite under the lab directory, with a bootstrap admin whose password is new each lab, fed
 * by the controller's event stream (gRPC on loopback: the controller listens on every address). A console that
 * does not come up (or a start given up through `signal`) is stopped before the error is thrown.
 */
export async function startLabConsole(o: LabConsoleOptions): Promise<LabConsole> {
  const password = randomBytes(12).toString("base64url");
  const passwordFile = join(o.dir, "console-admin-password");
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  const section: Record<string, unknown> = {
    controller: {
      url: `http://127.0.0.1:${o.controllerHttpPort}`,
      grpcAddress: `127.0.0.1:${o.controllerGrpcPort}`,
    },
    auth: { mode: "local", local: { bootstrapAdmin: "admin", bootstrapPasswordFile: passwordFile } },
  };
  // a webhook key new each lab, so endpoints (their secrets sealed with it) work in a fresh lab
  const keyFile = join(o.dir, "console-webhook-key");
  writeFileSync(keyFile, `${randomBytes(32).toString("base64")}\n`, { mode: 0o600 });
  section.webhooks = {
    encryptionKeyFile: keyFile,
    ...(o.alertPollInterval ? { alertPollInterval: o.alertPollInterval } : {}),
  };
  if (o.prometheusUrl) {
    section.prometheus = { url: o.prometheusUrl };
    // the directory the lab's Prometheus (or vmalert) loads
    section.alerts = {
      ruleDirectory: o.ruleDirectory,
      ...(o.evaluatorUrl ? { evaluatorUrl: o.evaluatorUrl } : {}),
    };
  }
  const cfg = {
    httpPort: o.httpPort,
    metricsPort: o.metricsPort,
    console: section,
    database: { url: `pglite:${join(o.dir, "console-db")}` },
  };
  const file = join(o.dir, "console.yaml");
  writeFileSync(file, stringify(cfg));
  const proc = startProcess("console", process.execPath, [o.svcBin, "console", "--config", file], {
    logFile: join(o.dir, "console.log"),
  });
  const url = `http://127.0.0.1:${o.httpPort}`;
  try {
    await waitFor("console /readyz", () => httpOk(`${url}/readyz`), 90_000, proc, o.signal);
  } catch (err) {
    await stopProcess(proc); // not the lab's yet: its teardown would not see it
    throw err;
  }
  return { process: proc, url, admin: { username: "admin", password } };
}
