/**
 * Resolves with the name of the first termination signal (SIGINT, SIGTERM), or "stdin-closed" when the process
 * was started by the lab (SVC_EXIT_WITH_STDIN=1) and the lab's end of the stdin pipe closed — so nothing a lab
 * started outlives it, even when the lab itself is killed outright.
 */
export function waitForShutdown(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve) => {
    const done = (why: string) => {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      resolve(why);
    };
    const onInt = () => done("SIGINT");
    const onTerm = () => done("SIGTERM");
    process.once("SIGINT", onInt);
    process.once("SIGTERM", onTerm);
    if (env.SVC_EXIT_WITH_STDIN === "1") {
      process.stdin.on("data", () => {});
      process.stdin.once("end", () => done("stdin-closed"));
      process.stdin.once("error", () => done("stdin-closed"));
      process.stdin.resume();
    }
  });
}
