import { randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/** Where freePort looks first: below the kernel's ephemeral range, above the ports services commonly take. */
const FIXED_RANGE_LOW = 10_000;

/**
 * The lowest port of the kernel's ephemeral range (net.ipv4.ip_local_port_range; 32768 when unreadable): ports
 * the kernel hands out on its own, to a listen on port 0 and to every outgoing connection.
 */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : 32768;
  } catch {
    return 32768;
  }
}

/** Listens on `port` (0 = the kernel picks) of 0.0.0.0 and closes; the port, or undefined when it is taken. */
function tryListen(port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", (err: NodeJS.ErrnoException) =>
      err.code === "EADDRINUSE" || err.code === "EACCES" ? resolve(undefined) : reject(err),
    );
    srv.listen(port, "0.0.0.0", () => {
      const addr = srv.address();
      const got = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(got));
    });
  });
}

/**
 * A TCP port free on this machine right now, for a process started next to listen on. Chosen at random below the
 * kernel's ephemeral range: a port from that range (what a listen on port 0 returns) can be taken by any outgoing
 * connection before the process binds it, which two test suites side by side on a busy machine did
 * (EADDRINUSE). Only another explicit binder can take one of these in between. Falls back to a kernel-picked port
 * when the range below is too small or full.
 */
export async function freePort(): Promise<number> {
  const high = ephemeralLow();
  if (high - FIXED_RANGE_LOW >= 1000) {
    for (let i = 0; i < 50; i++) {
      const port = await tryListen(randomInt(FIXED_RANGE_LOW, high));
      if (port !== undefined) return port;
    }
  }
  const port = await tryListen(0);
  if (port === undefined) throw new Error("no free port");
  return port;
}

/** `count` distinct free ports. */
export async function freePorts(count: number): Promise<number[]> {
  const out = new Set<number>();
  while (out.size < count) out.add(await freePort());
  return [...out];
}
