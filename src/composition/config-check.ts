import {
  ConfigFileMissingError,
  ConfigFileReadError,
  type ConfigIssue,
  ConfigValidationError,
  loadConfig,
} from "../config/load.js";
import type { GatewayConfig } from "../config/schema.js";
import { refuseDeclaredExposure } from "./header-exposure.js";
import { approvalLists } from "./startup-checks.js";

/**
 * `airlock config check`: strict validation (unknown keys are errors). Problems and warnings go to
 * stderr (a warning does not fail the check), the verdict to stdout. Returns the exit code.
 */
export function runConfigCheck(configPath: string | undefined): number {
  try {
    const loaded = loadConfig({ cliPath: configPath, strict: true });
    const refusal = startRefusal(loaded.config);
    if (refusal !== null) {
      process.stderr.write(`invalid configuration: 1 problem(s)\n  ${refusal}\n`);
      reportWarnings(loaded.warnings);
      return 1;
    }
    reportWarnings(loaded.warnings);
    for (const notice of relaxedRefusals(loaded.config)) process.stderr.write(`warning: ${notice}\n`);
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

/**
 * What refuses `serve` in a file the schema accepts and that can be told without starting anything:
 * a declared tool that breaks a `refuse_boot` header-exposure block.
 */
function startRefusal(config: GatewayConfig): string | null {
  try {
    refuseDeclaredExposure(config);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * What the configuration check would refuse but `startup_checks.enforce: false` lets start: `serve`
 * logs them as `startup_check_failed` errors, and the check says so.
 */
function relaxedRefusals(config: GatewayConfig): string[] {
  if (config.startup_checks.enforce || config.approvals.enabled) return [];
  return approvalLists(config).map(
    ({ path }) =>
      `${path}: holds calls for approval but approvals.enabled is false; ` +
      "with startup_checks.enforce false the gateway starts and refuses those calls (startup_check_failed)",
  );
}

/** What `serve` would log as warnings, one line each with its code. */
function reportWarnings(warnings: readonly ConfigIssue[]): void {
  for (const warning of warnings)
    process.stderr.write(`warning: ${warning.path}: ${warning.message} (${warning.code})\n`);
}
