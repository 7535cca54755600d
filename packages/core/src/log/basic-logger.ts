/**
 * The narrow logging surface components take (agent registration, controller services): structured fields first,
 * message second. A pino logger and core's Logger satisfy it; tests pass plain objects.
 */
export interface BasicLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** A logger that drops everything (the default when none is given). */
export const silentLogger: BasicLogger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};
