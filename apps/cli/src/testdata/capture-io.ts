import type { CommandIo } from "../output-flag.ts";

/** Test helper: a CommandIo recording what a command prints. */
export function captureIo(): CommandIo & { stdout: string[]; stderr: string[]; text(): string } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    out: (l) => stdout.push(l),
    err: (l) => stderr.push(l),
    text: () => stdout.join("\n"),
  };
}
