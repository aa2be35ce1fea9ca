import {
  ConfigFileMissingError,
  ConfigFileReadError,
  ConfigValidationError,
  loadConfig,
} from "../config/load.js";

/** `airlock config check`: strict validation (unknown keys are errors). Returns the exit code. */
export function runConfigCheck(configPath: string | undefined): number {
  try {
    const loaded = loadConfig({ cliPath: configPath, strict: true });
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
      return 1;
    }
    throw error;
  }
}
