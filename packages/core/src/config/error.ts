/** The one error type of configuration loading. */

/** Thrown for an unreadable, unparsable or invalid configuration; `issues` holds one line per problem. */
export class ConfigError extends Error {
  readonly issues: string[];
  constructor(issues: string[], source?: string) {
    super(`invalid configuration${source ? ` ${source}` : ""}:\n${issues.map((i) => `  ${i}`).join("\n")}`);
    this.name = "ConfigError";
    this.issues = issues;
  }
}
