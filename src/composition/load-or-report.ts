import {
  ConfigFileMissingError,
  ConfigFileReadError,
  ConfigValidationError,
  type LoadedConfig,
  type LoadOptions,
  loadConfig,
} from "../config/load.js";

/**
 * Loads the configuration for a command of the CLI; a missing, unreadable or invalid file is
 * reported on stderr (each problem with its path) and answers null.
 */
export function loadOrReport(options: LoadOptions): LoadedConfig | null {
  try {
    return loadConfig(options);
  } catch (error) {
    if (error instanceof ConfigFileMissingError || error instanceof ConfigFileReadError) {
      process.stderr.write(`error: ${error.message}\n`);
      return null;
    }
    if (error instanceof ConfigValidationError) {
      process.stderr.write(`error: invalid configuration (${error.issues.length} problem(s)):\n`);
      for (const issue of error.issues) process.stderr.write(`  ${issue.path}: ${issue.message}\n`);
      return null;
    }
    throw error;
  }
}
