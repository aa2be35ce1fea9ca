/**
 * Loading the configuration: which file, reading it, YAML, validation, environment precedence,
 * deep freeze. This is the only module of the project that reads `process.env`, and only as the
 * default of an `env` parameter, so every step can be tested with an environment of its own.
 */
import { readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { isMap, isSeq, LineCounter, parseDocument } from "yaml";
import {
  applyOverrides,
  type CliOverrides,
  type Environment,
  type EnvSettings,
  readEnvSettings,
  readOverrides,
} from "./env.js";
import { ConfigFileMissingError, ConfigFileReadError, ConfigValidationError } from "./errors.js";
import { deepFreeze } from "./freeze.js";
import type { ConfigIssue } from "./issues.js";
import type { GatewayConfig } from "./schema.js";
import { validateConfig } from "./validate.js";

export type { CliOverrides, Environment, EnvSettings } from "./env.js";
export { ConfigFileMissingError, ConfigFileReadError, ConfigValidationError } from "./errors.js";
export type { ConfigIssue } from "./issues.js";

/** Folder under `~/.config` searched last. */
export const APP_DIR_NAME = "airlock";
export const CONFIG_FILE_NAME = "config.yaml";

export type ConfigPathSource = "cli" | "env" | "cwd" | "home";

export interface ResolvedConfigPath {
  /** Absolute path of the file to read. */
  readonly path: string;
  /** True when the file was named (command line or `MCP_CONFIG`): its absence is an error. */
  readonly explicit: boolean;
  readonly source: ConfigPathSource;
  /** Every implicit candidate looked at, in order (empty when the path was named). */
  readonly candidates: readonly string[];
}

export interface ResolveOptions {
  readonly cliPath?: string | undefined;
  readonly env?: Environment;
  readonly cwd?: string;
  readonly home?: string;
  /** Existence test; replaceable for tests. */
  readonly exists?: (path: string) => boolean;
}

function fileExists(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
}

function expandHome(path: string, home: string): string {
  if (path === "~") return home;
  return path.startsWith("~/") ? join(home, path.slice(2)) : path;
}

/**
 * Which file to read, highest first (spec 2 §2): the command line, `MCP_CONFIG`, `./config.yaml`,
 * `~/.config/airlock/config.yaml`. When no implicit candidate exists the first one is returned
 * (with `explicit: false`) and loading reports every candidate searched.
 */
export function resolveConfigPath(options: ResolveOptions = {}): ResolvedConfigPath {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const home = options.home ?? homedir();
  const exists = options.exists ?? fileExists;
  const absolute = (path: string) => {
    const expanded = expandHome(path, home);
    return isAbsolute(expanded) ? expanded : resolve(cwd, expanded);
  };
  const cliPath = options.cliPath?.trim();
  if (cliPath) return { path: absolute(cliPath), explicit: true, source: "cli", candidates: [] };
  const envPath = env.MCP_CONFIG?.trim();
  if (envPath) return { path: absolute(envPath), explicit: true, source: "env", candidates: [] };
  const candidates = [
    join(cwd, CONFIG_FILE_NAME),
    join(home, ".config", APP_DIR_NAME, CONFIG_FILE_NAME),
  ] as const;
  const found = candidates.findIndex((candidate) => exists(candidate));
  return {
    path: candidates[found === 1 ? 1 : 0],
    explicit: false,
    source: found === 1 ? "home" : "cwd",
    candidates,
  };
}

/**
 * The file `POST /config/backup` and `GET /config/diff` act on (spec 1 "Configuration"):
 * `MCP_CONFIG`, else `config.yaml` in the working directory. Unlike {@link resolveConfigPath} the
 * command line is never looked at, and the file need not exist.
 */
export function resolveEnvConfigPath(options: { env?: Environment; cwd?: string } = {}): string {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const named = env.MCP_CONFIG?.trim();
  return resolve(cwd, named ? named : CONFIG_FILE_NAME);
}

export interface LoadedConfig {
  /** The validated configuration with defaults and overrides applied; deep-frozen. */
  readonly config: GatewayConfig;
  /** Absolute path of the file read; null when the text did not come from a file. */
  readonly path: string | null;
  readonly warnings: readonly ConfigIssue[];
  readonly env: EnvSettings;
  /** The text's values as written, before defaults (the reload diff tells explicit nulls from it). */
  readonly raw: unknown;
}

export interface ParseOptions {
  /** Defaults to `process.env`. */
  readonly env?: Environment;
  /** Refuse unknown keys; defaults to `GATEWAY_CONFIG_STRICT`. */
  readonly strict?: boolean;
  readonly overrides?: CliOverrides;
  /** Name used in YAML error locations and messages. */
  readonly sourceName?: string;
}

export interface LoadOptions extends ParseOptions {
  readonly cliPath?: string | undefined;
  readonly cwd?: string;
  readonly home?: string;
}

/** Bound on alias expansion, so that a small file cannot expand into an exhausting one. */
const MAX_ALIAS_COUNT = 100;

/** Reads YAML text; syntax errors become issues with their line and column. */
function readYaml(text: string, sourceName: string): { value: unknown; issues: ConfigIssue[] } {
  const lineCounter = new LineCounter();
  // Merge keys (`<<: *defaults`) are allowed; duplicate keys are errors, never a silent override.
  const document = parseDocument(text, { lineCounter, merge: true, uniqueKeys: true, prettyErrors: false });
  const issues = document.errors.map((error) => {
    const position = lineCounter.linePos(error.pos[0]);
    const reason = error.message.split("\n")[0] ?? error.message;
    return {
      path: `${sourceName}:${position.line}:${position.col}`,
      message: `YAML syntax error at line ${position.line}, column ${position.col}: ${reason}`,
      code: "yaml_syntax",
    };
  });
  if (issues.length > 0) return { value: undefined, issues };
  const contents = document.contents;
  if (contents !== null && !isMap(contents)) {
    // Decided from the node, not its value: a root list may hold aliases that cannot be expanded.
    const kind = isSeq(contents) ? "a list" : "a scalar";
    return {
      value: undefined,
      issues: [
        {
          path: "(root)",
          message: `must be a mapping of configuration sections, not ${kind}`,
          code: "invalid_value",
        },
      ],
    };
  }
  try {
    return { value: document.toJS({ maxAliasCount: MAX_ALIAS_COUNT }), issues };
  } catch (error) {
    // The yaml library refuses an alias to no anchor, and aliases that expand past the bound (a
    // "billion laughs" document), with a ReferenceError; its first words say which.
    if (!(error instanceof ReferenceError)) throw error;
    const message = error.message.startsWith("Excessive alias count")
      ? `YAML aliases expand too far: a node may be reached through at most ${MAX_ALIAS_COUNT} aliases`
      : `YAML alias refers to no anchor: ${error.message.split("\n")[0]}`;
    return { value: undefined, issues: [{ path: sourceName, message, code: "yaml_syntax" }] };
  }
}

/**
 * Validates configuration text through the whole pipeline (YAML, schema, environment, CLI
 * overrides, freeze) without reading a file. Throws `ConfigValidationError` listing every problem.
 */
export function parseConfig(text: string, options: ParseOptions = {}): LoadedConfig {
  return parseText(text, options, null);
}

function parseText(text: string, options: ParseOptions, path: string | null): LoadedConfig {
  const env = options.env ?? process.env;
  const sourceName = options.sourceName ?? path ?? "config";
  const { settings, issues: settingIssues } = readEnvSettings(env);
  const { overrides, issues: overrideIssues } = readOverrides(env, options.overrides);
  // Environment problems are reported with the file's, whatever state the file is in.
  const envIssues = [...settingIssues, ...overrideIssues];
  const strict = options.strict ?? settings.strict;
  const yaml = readYaml(text, sourceName);
  if (yaml.issues.length > 0) throw new ConfigValidationError([...yaml.issues, ...envIssues], [], sourceName);
  const outcome = validateConfig(yaml.value, { strict });
  const errors = [...outcome.errors, ...envIssues];
  if (outcome.config === undefined || errors.length > 0) {
    throw new ConfigValidationError(errors, outcome.warnings, sourceName);
  }
  applyOverrides(outcome.config, yaml.value, overrides);
  return {
    config: deepFreeze(outcome.config),
    path,
    warnings: outcome.warnings,
    env: settings,
    raw: yaml.value,
  };
}

function readConfigFile(resolved: ResolvedConfigPath): string {
  try {
    return readFileSync(resolved.path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT") {
      const reason = code === "EISDIR" ? "it is a directory" : (code ?? "unreadable");
      throw new ConfigFileReadError(
        resolved.path,
        `cannot read configuration file ${resolved.path}: ${reason}`,
      );
    }
    if (resolved.explicit) {
      const by = resolved.source === "cli" ? "the command line" : "MCP_CONFIG";
      throw new ConfigFileMissingError(
        resolved.path,
        `configuration file not found: ${resolved.path} (named by ${by})`,
      );
    }
    throw new ConfigFileMissingError(
      resolved.path,
      `no configuration file found (looked for ${resolved.candidates.join(" and ")}); pass --config or set MCP_CONFIG`,
    );
  }
}

/**
 * Resolves, reads and validates the configuration file. Throws `ConfigFileMissingError` when the
 * file is absent (named or not: there is no demo configuration), `ConfigFileReadError` when it
 * cannot be read and `ConfigValidationError` when it is invalid.
 */
export function loadConfig(options: LoadOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const resolved = resolveConfigPath({ cliPath: options.cliPath, env, cwd: options.cwd, home: options.home });
  const text = readConfigFile(resolved);
  return parseText(text, { ...options, env }, resolved.path);
}
