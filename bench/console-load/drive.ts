/**
 * The load generator of console-load: closed loops of GETs over routes in turn, timed from send to body end, on
 * node:http with one keep-alive connection per loop. (fetch, undici, cost this process about 0.6 ms of CPU a
 * request on the 2-core host: at ~1,900 req/s it needed more than a core itself, and against a bare server it,
 * not the server, set the latency.)
 */
import { Agent, request } from "node:http";

/** Latencies (ms) per route group and error counts by `path status` / `path error-name`. */
export interface Driven {
  times: Map<string, number[]>;
  errors: Map<string, number>;
  /** seconds the loops ran */
  elapsed: number;
  /** CPU of this process (the generator) over the run, fraction of one core */
  generatorCpu: number;
}

/** Runs `clients` closed loops for `seconds` against `base`, each over `routes` in turn from its own offset. */
export async function drive(
  base: string,
  routes: readonly (readonly [group: string, path: string])[],
  headers: Record<string, string>,
  clients: number,
  seconds: number,
): Promise<Driven> {
  const times = new Map<string, number[]>();
  for (const [group] of routes) times.set(group, []);
  const errors = new Map<string, number>();
  const count = (key: string) => errors.set(key, (errors.get(key) ?? 0) + 1);
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const end = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, k) => {
      for (let i = k; performance.now() < end; i++) {
        const [group, path] = routes[i % routes.length]!;
        const s = performance.now();
        try {
          const status = await get(agent, `${base}${path}`, headers);
          times.get(group)!.push(performance.now() - s);
          if (status !== 200) count(`${path} ${status}`);
        } catch (err) {
          count(`${path} ${(err as Error).message}`);
        }
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  agent.destroy();
  return { times, errors, elapsed, generatorCpu: (cpu.user + cpu.system) / 1e6 / elapsed };
}

/** One GET, its body read and dropped; resolves with the status. Errors: "timeout" after 30 s, else the code. */
function get(agent: Agent, url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers }, (res) => {
      res.on("data", () => {});
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", (e: NodeJS.ErrnoException) => reject(new Error(e.code ?? e.message)));
    });
    req.setTimeout(30_000, () => req.destroy(new Error("timeout")));
    req.on("error", (e: NodeJS.ErrnoException) => reject(new Error(e.code ?? e.message)));
    req.end();
  });
}
