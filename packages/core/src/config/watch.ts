/**
 * Hot reload of the configuration file. Watches the file's directory (so editor renames, `write temp + rename`
 * and Kubernetes ConfigMap `..data` symlink swaps are all seen), debounces, re-loads, and applies only the keys
 * that are live for the component. Also callable directly (`reload()`) for SIGHUP and tests.
 */
import { type FSWatcher, watch } from "node:fs";
import { basename, dirname } from "node:path";
import type { Logger } from "../log/logger.ts";
import { diffConfig } from "./diff.ts";
import { ConfigError } from "./error.ts";
import { type Component, isLiveKey, mergeLive } from "./live.ts";
import { loadConfig } from "./load.ts";
import type { SvcConfig } from "./types.ts";

/** Result of one reload. `applied` keys went to onApply; `needsRestart` keys changed but were not applied. */
export interface ReloadOutcome {
  /** "applied" iff onApply was called and succeeded; "unchanged" when no live key changed */
  status: "applied" | "rejected" | "unchanged";
  applied: string[];
  needsRestart: string[];
  issues: string[];
}

/** Options of ConfigWatcher. */
export interface ConfigWatcherOptions {
  path: string;
  env?: NodeJS.ProcessEnv;
  component: Component;
  /** the running config */
  current: SvcConfig;
  logger: Logger;
  /** receives the new running config (restart-only keys keep running values) and the live keys that changed */
  onApply: (next: SvcConfig, changedKeys: string[]) => void | Promise<void>;
  /** default 100 */
  debounceMs?: number;
  /** default of agent.nodeName, as for loadConfig */
  hostname?: string;
}

/**
 * Watches and reloads the config file. An invalid file is logged with all its issues and the running config
 * stays. When `logLevel` changes, the watcher also calls `logger.setLevel`.
 */
export class ConfigWatcher {
  readonly #opts: ConfigWatcherOptions;
  #current: SvcConfig;
  #watcher: FSWatcher | undefined;
  #timer: NodeJS.Timeout | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(opts: ConfigWatcherOptions) {
    this.#opts = opts;
    this.#current = opts.current;
  }

  /** The config currently running (after the last applied reload). */
  get current(): SvcConfig {
    return this.#current;
  }

  /** Starts watching the file's directory. Idempotent. */
  start(): void {
    if (this.#watcher) return;
    const name = basename(this.#opts.path);
    this.#watcher = watch(dirname(this.#opts.path), (_event, filename) => {
      if (filename === null || filename === name || filename.startsWith("..")) this.#schedule();
    });
    this.#watcher.on("error", (err) => this.#opts.logger.error({ err }, "config watch failed"));
  }

  /** Stops watching; a reload already running finishes. */
  stop(): void {
    this.#watcher?.close();
    this.#watcher = undefined;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Re-reads the file now. Reloads are serialised. */
  reload(): Promise<ReloadOutcome> {
    const run = this.#queue.then(() => this.#reloadOnce());
    this.#queue = run.catch(() => undefined);
    return run;
  }

  #schedule(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.reload();
    }, this.#opts.debounceMs ?? 100);
  }

  async #reloadOnce(): Promise<ReloadOutcome> {
    const { logger, component, path } = this.#opts;
    let next: SvcConfig;
    try {
      const loaded = loadConfig({ path, env: this.#opts.env ?? process.env, hostname: this.#opts.hostname });
      next = loaded.config;
      for (const w of loaded.warnings) logger.warn({ path }, `config warning: ${w}`);
    } catch (e) {
      const issues = e instanceof ConfigError ? e.issues : [String(e)];
      logger.error({ path, issues }, "config reload rejected; keeping the running configuration");
      return { status: "rejected", applied: [], needsRestart: [], issues };
    }
    const changed = diffConfig(this.#current, next);
    const applied = changed.filter((k) => isLiveKey(component, k));
    const needsRestart = changed.filter((k) => !isLiveKey(component, k));
    if (needsRestart.length > 0) {
      logger.warn(
        { path, keys: needsRestart },
        `config keys need a restart to apply: ${needsRestart.join(", ")}`,
      );
    }
    if (applied.length === 0) return { status: "unchanged", applied, needsRestart, issues: [] };
    const merged = mergeLive(component, this.#current, next, applied);
    try {
      await this.#opts.onApply(merged, applied);
    } catch (e) {
      const issues = [`apply failed: ${e instanceof Error ? e.message : String(e)}`];
      logger.error({ path, issues }, "config reload rejected; keeping the running configuration");
      return { status: "rejected", applied: [], needsRestart, issues };
    }
    this.#current = merged;
    if (applied.includes("logLevel")) logger.setLevel(merged.logLevel);
    logger.info({ path, keys: applied }, `config reloaded: ${applied.join(", ")}`);
    return { status: "applied", applied, needsRestart, issues: [] };
  }
}
