/** The console's logging surface, and the address helper shared by its listeners. */
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";

/** Logging surface the console uses; the @svc/core logger satisfies it. */
export interface ConsoleLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** A logger that drops everything (the default). */
export const silent: ConsoleLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** http://host:port of a listening fastify app. */
export function urlOf(app: FastifyInstance): string {
  const a = app.server.address() as AddressInfo | null;
  if (!a) throw new Error("not listening");
  const host = a.family === "IPv6" ? `[${a.address}]` : a.address;
  return `http://${host}:${a.port}`;
}
