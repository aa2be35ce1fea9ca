import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const packageDir = (name: string) => dirname(createRequire(import.meta.url).resolve(`${name}/package.json`));

/** The conformance suite's CLI, run with the current Node (the package's `conformance` bin). */
export const CONFORMANCE_CLI = join(packageDir("@modelcontextprotocol/conformance"), "dist/index.js");

/**
 * The suite that scores both revisions by requirement set (0.2.0-alpha.12, installed under another
 * name beside the one above): its CLI, and its `requirements/<revision>.yaml` files.
 */
const REQUIREMENTS_SUITE = packageDir("@modelcontextprotocol/conformance-2026");
export const REQUIREMENTS_CLI = join(REQUIREMENTS_SUITE, "dist/index.js");

/** A requirement set of the suite: the scenarios conformance to that revision requires. */
export type RequirementSet = "2025-11-25" | "2026-07-28";

/** One check as the suite writes it to `checks.json`. */
export interface ConformanceCheck {
  id: string;
  name: string;
  description: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
  details?: unknown;
}

export interface ScenarioResult {
  scenario: string;
  /** No FAILURE and no WARNING check: the rule the suite's own `--expected-failures` applies. */
  passed: boolean;
  checks: ConformanceCheck[];
  /** One line per failing or warning check, or why the scenario produced no result at all. */
  problems: string[];
}

export type SuiteResults = ReadonlyMap<string, ScenarioResult>;

/**
 * The whole suite's run is killed and every scenario without a result failed after this. The
 * suite's client waits 60 s for a response by default, so a request the server never answers
 * would otherwise hold the run for a minute per scenario.
 */
const SUITE_TIMEOUT_MS = 90_000;

interface CliRun {
  code: number | null;
  output: string;
  timedOut: boolean;
}

function runCli(args: string[], timeoutMs: number, cli = CONFORMANCE_CLI): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    let timedOut = false;
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output, timedOut });
    });
  });
}

/** The server scenarios of the installed suite (`conformance list --server`), pending ones included. */
export async function listServerScenarios(): Promise<string[]> {
  const run = await runCli(["list", "--server"], 15_000);
  if (run.code !== 0) throw new Error(`conformance list failed (exit ${run.code}): ${run.output}`);
  const names = [...run.output.matchAll(/^ {2}- (\S+)$/gm)].map((match) => match[1]!);
  if (names.length === 0) throw new Error(`conformance list printed no scenario: ${run.output}`);
  return names;
}

/**
 * Runs every scenario of the installed suite (`--suite all`, pending ones included) against `url`
 * in one suite process, one scenario after another, and reads each listed scenario's
 * `checks.json`. One process instead of one per scenario: starting the suite's CLI costs more
 * than most scenarios, and one at a time no two scenarios share the server at once.
 */
export async function runSuite(url: string, scenarios: readonly string[]): Promise<SuiteResults> {
  const outputRoot = mkdtempSync(join(tmpdir(), "airlock-conformance-"));
  try {
    const run = await runCli(["server", "--url", url, "--suite", "all", "-o", outputRoot], SUITE_TIMEOUT_MS);
    const written = readdirSync(outputRoot);
    return new Map(scenarios.map((scenario) => [scenario, readResult(outputRoot, written, scenario, run)]));
  } finally {
    rmSync(outputRoot, { recursive: true, force: true });
  }
}

/**
 * The server scenarios a requirement set lists (its `server:` section), in its file's order; the
 * `not_scored` ones are left out.
 */
export function requiredServerScenarios(set: RequirementSet): string[] {
  const text = readFileSync(join(REQUIREMENTS_SUITE, "requirements", `${set}.yaml`), "utf8");
  const section = /^server:\n((?: {2}- \S+\n|\s*#.*\n)+)/m.exec(text)?.[1] ?? "";
  const names = [...section.matchAll(/^ {2}- (\S+)$/gm)].map((match) => match[1]!);
  if (names.length === 0) throw new Error(`requirements/${set}.yaml lists no server scenario`);
  return names;
}

/**
 * Runs a requirement set of the second suite against `url` (`--requirements <set>`: each scenario
 * at that revision's wire version, one after another in one process) and reads the result of each
 * scenario the set requires.
 */
export async function runRequirements(url: string, set: RequirementSet): Promise<SuiteResults> {
  const outputRoot = mkdtempSync(join(tmpdir(), "airlock-conformance-"));
  try {
    const args = ["server", "--url", url, "--requirements", set, "-o", outputRoot];
    const run = await runCli(args, SUITE_TIMEOUT_MS, REQUIREMENTS_CLI);
    const written = readdirSync(outputRoot);
    const required = requiredServerScenarios(set);
    return new Map(required.map((scenario) => [scenario, readResult(outputRoot, written, scenario, run)]));
  } finally {
    rmSync(outputRoot, { recursive: true, force: true });
  }
}

/** A scenario's outcome from the `server-<scenario>-<timestamp>/checks.json` the suite wrote. */
function readResult(
  outputRoot: string,
  written: readonly string[],
  scenario: string,
  run: CliRun,
): ScenarioResult {
  // `server-tools-call-<timestamp>` must not be taken for `tools-call-sampling`: a timestamp follows.
  const resultDir = written.find((name) => new RegExp(`^server-${scenario}-\\d`).test(name));
  const checksFile = resultDir ? join(outputRoot, resultDir, "checks.json") : undefined;
  if (!checksFile || !existsSync(checksFile)) {
    const why = run.timedOut ? `the suite timed out after ${SUITE_TIMEOUT_MS} ms` : `suite exit ${run.code}`;
    const tail = run.output.trim().split("\n").slice(-5).join(" | ");
    return { scenario, passed: false, checks: [], problems: [`no result (${why}): ${tail}`] };
  }
  const checks = JSON.parse(readFileSync(checksFile, "utf8")) as ConformanceCheck[];
  const problems = checks
    .filter((check) => check.status === "FAILURE" || check.status === "WARNING")
    .map((check) => `${check.id} ${check.status}${check.errorMessage ? `: ${check.errorMessage}` : ""}`);
  if (checks.length === 0) problems.push("the scenario reported no check");
  return { scenario, passed: problems.length === 0, checks, problems };
}

export function passing(results: SuiteResults): string[] {
  return [...results.values()].filter((result) => result.passed).map((result) => result.scenario);
}
