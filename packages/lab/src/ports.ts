import { randomInt } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processRuns, processStart } from "./state.ts";

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
 * Where ports handed out by freePort are reserved machine-wide: one file per port, holding the holder's pid and
 * its start time (so a reused pid does not hold it).
 */
export const PORT_RESERVATIONS = join(tmpdir(), "svc-ports");

/**
 * Reserves `port` for `pid` (default: this process) in `dir`: false when another live process holds it (a free
 * port another lab or suite was handed and has not bound yet). A reservation lasts while its holder lives; a dead
 * holder's is taken over. Where no reservation can be written (a directory of another user, say) it answers true:
 * the port is then only as safe as a free port.
 */
export function reservePort(port: number, dir = PORT_RESERVATIONS, pid = process.pid): boolean {
  try {
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o1777); // every user reserves here; the sticky bit keeps their files their own
  } catch {
    // not ours to change: reservations still work where the directory is writable
  }
  const file = join(dir, String(port));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, `${pid} ${processStart(pid) ?? ""}\n`, { flag: "wx" });
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") return true;
    }
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue; // released meanwhile
    }
    const [pidText, start] = text.trim().split(" ");
    const holder = Number(pidText);
    // no pid yet: its creator is between creating and writing it
    if (!(Number.isInteger(holder) && holder > 0) || processRuns(holder, start || undefined)) return false;
    try {
      unlinkSync(file); // its holder is gone
    } catch {
      return false;
    }
  }
  return false;
}

/**
 * A TCP port free on this machine right now, for a process started next to listen on. Chosen at random below the
 * kernel's ephemeral range: a port from that range (what a listen on port 0 returns) can be taken by any outgoing
 * connection before the process binds it, which two test suites side by side on a busy machine did
 * (EADDRINUSE). And reserved for this process (reservePort): two labs of two suites once drew the same port for
 * their consoles within seconds, both free when drawn, and the second lab's sign-in reached the first's console.
 * Only a binder that does not use freePort can take one in between. Falls back to a kernel-picked port when the
 * range below is too small or full.
 */
export async function freePort(): Promise<number> {
  const high = ephemeralLow();
  if (high - FIXED_RANGE_LOW >= 1000) {
    for (let i = 0; i < 50; i++) {
      const port = await tryListen(randomInt(FIXED_RANGE_LOW, high));
      if (port !== undefined && reservePort(port)) return port;
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
