import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** The conformance suite's CLI, run with the current Node (the package's `conformance` bin). */
export const CONFORMANCE_CLI = join(
  dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/conformance/package.json")),
  "dist/index.js",
);

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

export interface RunOptions {
  /** Scenario processes run at once. Each is a short-lived MCP client; four keep two cores busy. */
  concurrency?: number;
  /**
   * A scenario still running after this is killed and failed. The suite's client waits 60 s for a
   * response by default, so a request the server never answers would otherwise cost a minute.
   */
  scenarioTimeoutMs?: number;
}

const DEFAULT_CONCURRENCY = 4;
const DEFAULT_SCENARIO_TIMEOUT_MS = 20_000;

interface CliRun {
  code: number | null;
  output: string;
  timedOut: boolean;
}

function runCli(args: string[], timeoutMs: number): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CONFORMANCE_CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
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

/** Runs one server scenario against `url` and reads its `checks.json`. */
export async function runScenario(
  url: string,
  scenario: string,
  outputRoot: string,
  timeoutMs = DEFAULT_SCENARIO_TIMEOUT_MS,
): Promise<ScenarioResult> {
  const outputDir = join(outputRoot, scenario);
  const run = await runCli(["server", "--url", url, "--scenario", scenario, "-o", outputDir], timeoutMs);
  // The suite writes <output>/server-<scenario>-<timestamp>/checks.json once the scenario ends.
  const resultDir = existsSync(outputDir)
    ? readdirSync(outputDir).find((name) => name.startsWith(`server-${scenario}-`))
    : undefined;
  const checksFile = resultDir ? join(outputDir, resultDir, "checks.json") : undefined;
  if (!checksFile || !existsSync(checksFile)) {
    const why = run.timedOut ? `timed out after ${timeoutMs} ms` : `exit ${run.code}`;
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

/** Runs every scenario against `url`, a few at a time, each in its own suite process. */
export async function runSuite(
  url: string,
  scenarios: readonly string[],
  options: RunOptions = {},
): Promise<SuiteResults> {
  const outputRoot = mkdtempSync(join(tmpdir(), "airlock-conformance-"));
  const results = new Map<string, ScenarioResult>();
  const queue = [...scenarios];
  const worker = async () => {
    for (let scenario = queue.shift(); scenario !== undefined; scenario = queue.shift()) {
      results.set(scenario, await runScenario(url, scenario, outputRoot, options.scenarioTimeoutMs));
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency ?? DEFAULT_CONCURRENCY }, worker));
  } finally {
    rmSync(outputRoot, { recursive: true, force: true });
  }
  // In the order the suite lists them, for readable reports.
  return new Map(scenarios.map((scenario) => [scenario, results.get(scenario)!]));
}

export function passing(results: SuiteResults): string[] {
  return [...results.values()].filter((result) => result.passed).map((result) => result.scenario);
}
