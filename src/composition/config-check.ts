import {
  ConfigFileMissingError,
  ConfigFileReadError,
  type ConfigIssue,
  ConfigValidationError,
  loadConfig,
  resolveConfigPath,
} from "../config/load.js";
import type { GatewayConfig } from "../config/schema.js";
import {
  type CheckReport,
  describeIssue,
  type ReportedIssue,
  readSource,
  type SourceText,
  syntaxErrors,
  writeJson,
  writeText,
} from "./config-check-report.js";
import { refuseDeclaredExposure } from "./header-exposure.js";
import { approvalLists } from "./startup-checks.js";

/** Exit codes of `airlock config check` (docs/configuration.md). */
export const CHECK_EXIT = {
  valid: 0,
  /** The file was read and is not a valid configuration. */
  invalid: 1,
  /** The file cannot be read: missing, a directory, no permission. */
  unreadable: 2,
} as const;

export type CheckFormat = "text" | "json";

export const CHECK_FORMATS: readonly CheckFormat[] = ["text", "json"];

/**
 * `airlock config check`: strict validation (unknown keys are errors). As text, problems and
 * warnings go to stderr (a warning does not fail the check) and the verdict to stdout; as JSON, one
 * report on stdout. Returns the exit code ({@link CHECK_EXIT}).
 */
export function runConfigCheck(configPath: string | undefined, format: CheckFormat = "text"): number {
  const { report, code } = check(configPath);
  if (format === "json") writeJson(report);
  else writeText(report);
  return code;
}

function check(configPath: string | undefined): { report: CheckReport; code: number } {
  try {
    const loaded = loadConfig({ cliPath: configPath, strict: true });
    const source = readSource(loaded.path);
    const warnings = [...loaded.warnings.map((issue) => describeIssue(issue, source))];
    const refusal = startRefusal(loaded.config);
    if (refusal !== null) {
      return invalid(loaded.path, [refusal], warnings);
    }
    warnings.push(...relaxedRefusals(loaded.config));
    return { report: { ok: true, file: loaded.path, errors: [], warnings }, code: CHECK_EXIT.valid };
  } catch (error) {
    if (error instanceof ConfigFileMissingError || error instanceof ConfigFileReadError) {
      const code = error instanceof ConfigFileMissingError ? "config_file_missing" : "config_file_unreadable";
      return {
        report: {
          ok: false,
          file: error.path,
          errors: [{ path: error.path, message: error.message, code }],
          warnings: [],
        },
        code: CHECK_EXIT.unreadable,
      };
    }
    if (error instanceof ConfigValidationError) {
      const file = resolveConfigPath({ cliPath: configPath }).path;
      const source = readSource(file);
      return invalid(
        file,
        problems(error.issues, source, file),
        error.warnings.map((w) => describeIssue(w, source)),
      );
    }
    throw error;
  }
}

function invalid(file: string | null, errors: ReportedIssue[], warnings: ReportedIssue[]) {
  return { report: { ok: false, file, errors, warnings }, code: CHECK_EXIT.invalid };
}

/** The loader's issues, YAML syntax errors replaced by the ones with a code frame. */
function problems(issues: readonly ConfigIssue[], source: SourceText, file: string): ReportedIssue[] {
  const syntax = issues.some((issue) => issue.code === "yaml_syntax" && /:\d+:\d+$/.test(issue.path));
  const framed = syntax && source.text !== undefined ? syntaxErrors(source.text, file) : [];
  const rest = framed.length > 0 ? issues.filter((issue) => issue.code !== "yaml_syntax") : issues;
  return [...framed, ...rest.map((issue) => describeIssue(issue, source))];
}

/**
 * What refuses `serve` in a file the schema accepts and that can be told without starting anything:
 * a declared tool that breaks a `refuse_boot` header-exposure block.
 */
function startRefusal(config: GatewayConfig): ReportedIssue | null {
  try {
    refuseDeclaredExposure(config);
    return null;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // The refusal names its place first ("mcp_servers.x.tools: ..."): split it into path and message.
    const [path, ...rest] = message.split(": ");
    return rest.length > 0 && path !== undefined
      ? { path, message: rest.join(": "), code: "header_exposure_violation" }
      : { path: "(root)", message, code: "header_exposure_violation" };
  }
}

/**
 * What the configuration check would refuse but `startup_checks.enforce: false` lets start: `serve`
 * logs them as `startup_check_failed` errors, and the check says so.
 */
function relaxedRefusals(config: GatewayConfig): ReportedIssue[] {
  if (config.startup_checks.enforce || config.approvals.enabled) return [];
  return approvalLists(config).map(({ path }) => ({
    path,
    message:
      "holds calls for approval but approvals.enabled is false; " +
      "with startup_checks.enforce false the gateway starts and refuses those calls (startup_check_failed)",
    code: "startup_check_failed",
  }));
}
