/**
 * The console's garbage-collection policy, set when `svc console` starts. Node sizes the V8 heap from the machine's
 * memory and by default lets old space grow to 2-4x what survived a major collection: on PostgreSQL under 50
 * clients (bench/console-load) the working set went from 53 MiB idle to 200-210 MiB. With
 * `--heap-growing-percent=25` (old space grows by 25 % of what survived) it stayed at 107-110 MiB at the same
 * requests per second. The controller's second flag, `--semi-space-growth-factor=1`, is left out here: it
 * lowered the working set to 74 MiB but cost a third of the throughput (the console allocates per request; a
 * young generation held at its initial size is scavenged far more often). Applied with @svc/core's
 * applyHeapPolicy, so operator flags take precedence.
 */
export const CONSOLE_HEAP_FLAGS: readonly string[] = ["--heap-growing-percent=25"];
