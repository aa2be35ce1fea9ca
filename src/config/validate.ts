/**
 * Validation of a configuration document already read from YAML: no file, no environment.
 *
 * zod reports unknown keys, ignored keys and deprecated values as issues. Each such issue carries
 * the repair that makes the document acceptable (drop the key, use the current spelling), so the
 * document is validated again after the repairs. The refusals of the last pass are the real ones,
 * including cross-field rules that an earlier pass could not evaluate yet.
 */
import { applyFixes, type ConfigIssue, classifyIssues } from "./issues.js";
import { lintConfig, lintRaw } from "./lints.js";
import { isPlainObject } from "./schema/primitives.js";
import { configSchema, type GatewayConfig } from "./schema.js";

export interface ValidationOutcome {
  /** The normalized configuration; undefined when `errors` is not empty. */
  readonly config: GatewayConfig | undefined;
  readonly errors: ConfigIssue[];
  readonly warnings: ConfigIssue[];
}

export interface ValidateOptions {
  /** Refuse unknown keys instead of warning (`GATEWAY_CONFIG_STRICT=1`, `config check`). */
  readonly strict?: boolean;
}

/**
 * Repairs never create new warnings of their own, so two passes suffice; the bound only guards
 * against a future schema that would.
 */
const MAX_PASSES = 4;

function sortFindings(strict: boolean, raw: unknown) {
  const errors: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  for (const finding of lintRaw(raw)) {
    if (finding.code !== "unknown_config_key") warnings.push(finding);
    else if (strict)
      errors.push({ ...finding, message: `unknown key (${finding.message}); refused in strict mode` });
    else warnings.push({ ...finding, message: `unknown key: ${finding.message}` });
  }
  return { errors, warnings };
}

/** Prefix of top-level keys that hold YAML anchors for reuse (`x-defaults: &defaults`), as in Compose files. */
export const EXTENSION_KEY_PREFIX = "x-";

function withoutExtensionKeys(raw: unknown): unknown {
  if (!isPlainObject(raw)) return raw;
  return Object.fromEntries(Object.entries(raw).filter(([key]) => !key.startsWith(EXTENSION_KEY_PREFIX)));
}

/** Validates a parsed YAML document, reporting every problem found. */
export function validateConfig(input: unknown, options: ValidateOptions = {}): ValidationOutcome {
  const strict = options.strict ?? false;
  const raw = withoutExtensionKeys(input);
  const warnings: ConfigIssue[] = [];
  const strictErrors: ConfigIssue[] = [];
  const rawFindings = sortFindings(strict, raw);
  let document = raw;
  for (let pass = 1; ; pass++) {
    const result = configSchema.safeParse(document);
    if (result.success) {
      const errors = [...strictErrors, ...rawFindings.errors];
      warnings.push(...rawFindings.warnings, ...lintConfig(result.data));
      return { config: errors.length === 0 ? result.data : undefined, errors, warnings };
    }
    const classified = classifyIssues(result.error.issues, strict);
    warnings.push(...classified.warnings);
    strictErrors.push(...classified.errors.filter((issue) => issue.code === "unknown_config_key"));
    const otherErrors = classified.errors.filter((issue) => issue.code !== "unknown_config_key");
    if (classified.fixes.length === 0 || pass === MAX_PASSES) {
      warnings.push(...rawFindings.warnings);
      return {
        config: undefined,
        errors: [...strictErrors, ...otherErrors, ...rawFindings.errors],
        warnings,
      };
    }
    document = applyFixes(document, classified.fixes);
  }
}
