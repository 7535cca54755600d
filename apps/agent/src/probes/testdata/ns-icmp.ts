// Runs inside a test network namespace: pings each address given on the command line with createIcmpProber
// (the first replies wait for neighbour discovery on the fresh link, hence the generous timeout) and prints
// {kind4, kind6, results} as JSON. BATCH_CLOCK=1: on a CoalescingClock (replies read per batch, as in the agent).
import { CoalescingClock } from "../../clock/probe-clock.ts";
import { createIcmpProber } from "../icmp.ts";

const prober = createIcmpProber({
  forbidRaw: process.env.FORBID_RAW === "1",
  ...(process.env.BATCH_CLOCK === "1" ? { clock: new CoalescingClock() } : {}),
});
const addresses = process.argv.slice(2);
const results = await Promise.all(
  addresses.map((address) => prober.probe({ address, count: 3, timeoutMs: 1500 })),
);
console.log(JSON.stringify({ kind4: prober.socketKind(4), kind6: prober.socketKind(6), results }));
prober.close();
