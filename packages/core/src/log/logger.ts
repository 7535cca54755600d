/**
 * The service logger: pino underneath, `json` (pino JSON lines) or `text` (one readable line per record),
 * written to stdout. The level is shared by a logger and all its children and can change at runtime
 * (hot reload of `logLevel`).
 */
import { pino } from "pino";
import type { LogFormat, LogLevel } from "../config/types.ts";
import { formatTextLine } from "./text.ts";

/** Anything with a write(string) method, such as process.stdout. */
export interface LogSink {
  write(chunk: string): unknown;
}

/** Options of createLogger. */
export interface LoggerOptions {
  level: LogLevel;
  format: LogFormat;
  /** added to every record as `name` */
  name?: string;
  /** default process.stdout */
  sink?: LogSink;
}

/** Narrow logging interface used across svc. Structured fields first, message second (pino order). */
export interface Logger {
  debug(objOrMsg: object | string, msg?: string): void;
  info(objOrMsg: object | string, msg?: string): void;
  warn(objOrMsg: object | string, msg?: string): void;
  error(objOrMsg: object | string, msg?: string): void;
  /** A logger adding `bindings` to every record; it shares this logger's level. */
  child(bindings: Record<string, unknown>): Logger;
  /** Changes the level of this logger, its parent and all its children. */
  setLevel(level: LogLevel): void;
  readonly level: LogLevel;
}

const RANK: Record<LogLevel, number> = { debug: 20, info: 30, warn: 40, error: 50 };

interface LevelState {
  level: LogLevel;
}

/** Creates a logger writing to `sink` (stdout by default). */
export function createLogger(opts: LoggerOptions): Logger {
  const sink = opts.sink ?? process.stdout;
  const destination: LogSink =
    opts.format === "text" ? { write: (line: string) => sink.write(formatTextLine(line)) } : sink;
  const base = pino(
    {
      level: "debug",
      base: opts.name === undefined ? null : { name: opts.name },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination as pino.DestinationStream,
  );
  return wrap(base, { level: opts.level });
}

function wrap(p: pino.Logger, state: LevelState): Logger {
  const at =
    (level: LogLevel) =>
    (objOrMsg: object | string, msg?: string): void => {
      if (RANK[level] < RANK[state.level]) return;
      if (typeof objOrMsg === "string") p[level](objOrMsg);
      else p[level](objOrMsg, msg);
    };
  return {
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    child: (bindings) => wrap(p.child(bindings), state),
    setLevel: (level) => {
      state.level = level;
    },
    get level() {
      return state.level;
    },
  };
}
