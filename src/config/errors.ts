/** Failures of loading the configuration; the CLI prints them and exits 1. */
import type { ConfigIssue } from "./issues.js";

/** A configuration file that was named (or searched for) does not exist. No demo configuration is used. */
export class ConfigFileMissingError extends Error {
  override readonly name = "ConfigFileMissingError";

  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/** The configuration file exists but cannot be read (permissions, a directory, ...). */
export class ConfigFileReadError extends Error {
  override readonly name = "ConfigFileReadError";

  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/** The configuration (or the environment) is invalid; `issues` lists every problem found. */
export class ConfigValidationError extends Error {
  override readonly name = "ConfigValidationError";

  constructor(
    readonly issues: readonly ConfigIssue[],
    readonly warnings: readonly ConfigIssue[] = [],
    readonly source: string | null = null,
  ) {
    const where = source === null ? "" : ` in ${source}`;
    const lines = issues.map((issue) => `  ${issue.path}: ${issue.message}`);
    super(
      `invalid configuration${where} (${issues.length} problem${issues.length === 1 ? "" : "s"}):\n${lines.join("\n")}`,
    );
  }
}
