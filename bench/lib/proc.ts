import { readFileSync } from "node:fs";

const CLK_TCK = 100; // Linux USER_HZ

/** CPU time of a process so far split into user and system (kernel) ms, from /proc/<pid>/stat. */
export function cpuSplit(pid: number): { user: number; sys: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // fields[0] is field 3 (state): utime is field 14, stime field 15
  return {
    user: (Number(fields[11]) * 1000) / CLK_TCK,
    sys: (Number(fields[12]) * 1000) / CLK_TCK,
  };
}

/** CPU time (user + system) of a process so far, in ms. */
export function cpuMs(pid: number): number {
  const { user, sys } = cpuSplit(pid);
  return user + sys;
}

/**
 * Resident set size now and its peak (VmRSS, VmHWM), and what it is made of now: anonymous (the process's own
 * memory) and file pages (mapped files, shared with the page cache: for node mostly its own executable), bytes.
 */
export function rss(pid: number): { now: number; peak: number; anon: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) =>
    Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN) * 1024;
  return { now: kb("VmRSS"), peak: kb("VmHWM"), anon: kb("RssAnon"), file: kb("RssFile") };
}
