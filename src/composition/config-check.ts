import {
  ConfigFileMissingError,
  ConfigFileReadError,
  type ConfigIssue,
  ConfigValidationError,
  loadConfig,
} from "../config/load.js";

/**
 * `airlock config check`: strict validation (unknown keys are errors). Problems and warnings go to
 * stderr (a warning does not fail the check), the verdict to stdout. Returns the exit code.
 */
export function runConfigCheck(configPath: string | undefined): number {
  try {
    const loaded = loadConfig({ cliPath: configPath, strict: true });
    reportWarnings(loaded.warnings);
    process.stdout.write(`configuration OK: ${loaded.path ?? "(built-in)"}\n`);
    return 0;
  } catch (error) {
    if (error instanceof ConfigFileMissingError || error instanceof ConfigFileReadError) {
      process.stderr.write(`error: ${error.message}\n`);
      return 1;
    }
    if (error instanceof ConfigValidationError) {
      process.stderr.write(`invalid configuration: ${error.issues.length} problem(s)\n`);
      for (const issue of error.issues) process.stderr.write(`  ${issue.path}: ${issue.message}\n`);
      reportWarnings(error.warnings);
      return 1;
    }
    throw error;
  }
}

/** What `serve` would log as warnings, one line each with its code. */
function reportWarnings(warnings: readonly ConfigIssue[]): void {
  for (const warning of warnings)
    process.stderr.write(`warning: ${warning.path}: ${warning.message} (${warning.code})\n`);
}
