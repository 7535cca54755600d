/** Options of ConsoleServer (their own module so that the services can be built from them without the server). */
import type { KubeConfig } from "@kubernetes/client-node";
import type { EventServiceClient } from "@svc/protocol";
import type { Redis } from "ioredis";
import type { AlertTransitionSink } from "./alerts/poller.ts";
import type { ConsoleConfig } from "./config/schema.ts";
import type { Scheduler } from "./events/ingester.ts";
import type { Ticker } from "./live/ticker.ts";
import type { ConsoleLogger } from "./log.ts";
import type { Db } from "./store/db.ts";

/** Options of ConsoleServer. */
export interface ConsoleServerOptions {
  config: ConsoleConfig;
  /** the database; undefined = in-memory mode */
  db?: Db;
  /**
   * the shared store (connectShared()); when given, sign-in budgets and sessions live there (replicas > 1).
   * The caller owns the connection and closes it after stop().
   */
  redis?: Redis;
  /** key prefix in the shared store; default "svc:console:" */
  redisPrefix?: string;
  logger?: ConsoleLogger;
  /** clock in epoch ms; default Date.now */
  now?: () => number;
  /** listen address; default "0.0.0.0" (tests: "127.0.0.1") */
  host?: string;
  /** override config ports (tests pass 0) */
  httpPort?: number;
  metricsPort?: number;
  version?: string;
  /** metric name prefix; default "svc" */
  metricsPrefix?: string;
  /**
   * TEST ONLY: replaces the validated `auth.oidc.issuer` (which must be https) with this URL and lets the OIDC
   * client talk plain http to it. Never set outside tests.
   */
  unsafeOidcTestIssuer?: string;
  /** built SPA to serve (apps/web/dist); default: found when built; false: serve none */
  webRoot?: string | false;
  /** the live fan-out's seams (tests): replica id, slow-consumer bound, matrix push period, periodic timers */
  live?: { replicaId?: string; slowBytes?: number; matrixIntervalMs?: number; every?: Ticker };
  /**
   * event history seams (tests): the controller EventService client factory (default: controller.grpcAddress),
   * the scheduler of reconnects, baselines and relists (default Node timers), the Kubernetes API for cluster events
   */
  events?: { dial?: () => EventServiceClient; scheduler?: Scheduler; kubeConfig?: KubeConfig };
  /**
   * the per-replica cache of sessions, users, tokens and access (auth/auth-cache.ts): how old an entry may be
   * (default 500 ms; 0 = no cache) and its clock (default a monotonic one)
   */
  authCache?: { ttlMs?: number; now?: () => number };
  /** alert poller seams (tests): its scheduler (default Node timers) and where transitions go (default: logged) */
  alerts?: { scheduler?: Scheduler; sink?: AlertTransitionSink };
}
