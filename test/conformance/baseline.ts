import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { ScenarioResult, SuiteResults } from "./suite.js";

export const BASELINE_FILE = resolve("test/conformance/expected-failures.json");

/**
 * Why a scenario is expected to fail. `fixture-limitation` is judged against the fixture alone;
 * every other class against Airlock, on scenarios the fixture passes alone.
 */
export const BASELINE_CLASSES = {
  "fixture-limitation": "the fixture alone fails the scenario, so Airlock is not held to it",
  "gateway-adds-management-tools": "Airlock lists its management tools beside the upstream's",
  "not-relayed": "Airlock does not carry a message the scenario needs between client and upstream",
  "stdio-upstream": "the scenario needs an HTTP upstream; Airlock reaches the fixture over stdio",
  "gateway-transport": "Airlock's own streamable HTTP endpoint behaves differently from the fixture's",
  "bridged-from-2025":
    "Airlock reaches the upstream over a 2025-11-25 session, whose requests for input name no key and follow the capabilities Airlock declared there, not the client's",
} as const;

export type BaselineClass = keyof typeof BASELINE_CLASSES;

/** How Airlock reaches the fixture in a run through its front door. */
export type UpstreamTransport = "stdio" | "remote";

export interface BaselineEntry {
  scenario: string;
  class: BaselineClass;
  reason: string;
  /** The one upstream transport the entry holds for; both without it. */
  upstream?: UpstreamTransport;
}

/** The entries that hold for a run through `upstream`. */
export function forUpstream(
  baseline: readonly BaselineEntry[],
  upstream: UpstreamTransport,
): BaselineEntry[] {
  return baseline.filter((entry) => entry.upstream === undefined || entry.upstream === upstream);
}

export function isFixtureEntry(entry: BaselineEntry): boolean {
  return entry.class === "fixture-limitation";
}

/** Reads the baseline file; shape problems are reported by `baselineProblems`, not thrown. */
export function readBaseline(file = BASELINE_FILE): unknown {
  return JSON.parse(readFileSync(file, "utf8"));
}

/** Everything wrong with a baseline document, given the scenarios the installed suite knows. */
export function baselineProblems(document: unknown, knownScenarios: readonly string[]): string[] {
  const entries = (document as { entries?: unknown } | null)?.entries;
  if (!Array.isArray(entries)) return ["the baseline must be an object with an `entries` array"];
  const problems: string[] = [];
  const seen = new Set<string>();
  entries.forEach((raw, index) => {
    const entry = (raw ?? {}) as Partial<Record<keyof BaselineEntry, unknown>>;
    const at = `entries[${index}]`;
    const keys = Object.keys(entry).filter(
      (key) => !["scenario", "class", "reason", "upstream"].includes(key),
    );
    if (entry.upstream !== undefined && entry.upstream !== "stdio" && entry.upstream !== "remote")
      problems.push(`${at}: upstream must be "stdio" or "remote"`);
    if (keys.length > 0) problems.push(`${at}: unknown key(s) ${keys.join(", ")}`);
    if (typeof entry.scenario !== "string" || !knownScenarios.includes(entry.scenario)) {
      problems.push(
        `${at}: scenario ${JSON.stringify(entry.scenario)} is not a server scenario of the suite`,
      );
    } else if (seen.has(entry.scenario)) {
      problems.push(`${at}: scenario ${entry.scenario} is listed twice`);
    } else {
      seen.add(entry.scenario);
    }
    if (typeof entry.class !== "string" || !(entry.class in BASELINE_CLASSES)) {
      problems.push(
        `${at}: class ${JSON.stringify(entry.class)} is not one of ${Object.keys(BASELINE_CLASSES).join(", ")}`,
      );
    }
    if (typeof entry.reason !== "string" || entry.reason.trim() === "" || entry.reason.includes("\n")) {
      problems.push(`${at}: reason must be one non-empty line`);
    }
  });
  return problems;
}

export function parseBaseline(document: unknown, knownScenarios: readonly string[]): BaselineEntry[] {
  const problems = baselineProblems(document, knownScenarios);
  if (problems.length > 0) throw new Error(`invalid conformance baseline:\n${problems.join("\n")}`);
  return (document as { entries: BaselineEntry[] }).entries;
}

/** What a run has that the baseline does not say, and what the baseline says that no longer holds. */
export interface Judgement {
  /** Failing scenarios the baseline does not list, with the checks that failed. */
  unexpectedFailures: string[];
  /** Baseline entries whose scenario passed: remove them. */
  staleEntries: string[];
}

function describeFailure(result: ScenarioResult | undefined, scenario: string): string {
  return `${scenario}: ${result ? result.problems.join("; ") : "not run"}`;
}

function describeEntry(entry: BaselineEntry, why: string): string {
  return `${entry.scenario} [${entry.class}]: ${why}`;
}

/** The fixture alone, against the `fixture-limitation` entries. */
export function judgeFixture(fixture: SuiteResults, baseline: readonly BaselineEntry[]): Judgement {
  const expected = new Map(baseline.filter(isFixtureEntry).map((entry) => [entry.scenario, entry]));
  const unexpectedFailures: string[] = [];
  for (const [scenario, result] of fixture) {
    if (!result.passed && !expected.has(scenario)) unexpectedFailures.push(describeFailure(result, scenario));
  }
  const staleEntries = [...expected.values()]
    .filter((entry) => fixture.get(entry.scenario)?.passed === true)
    .map((entry) => describeEntry(entry, "the fixture passes it alone"));
  return { unexpectedFailures, staleEntries };
}

/**
 * Airlock against the fixture: every scenario the fixture passes alone must pass through Airlock
 * unless a gateway entry (any class but `fixture-limitation`) lists it.
 */
export function judgeGateway(
  fixture: SuiteResults,
  gateway: SuiteResults,
  baseline: readonly BaselineEntry[],
): Judgement {
  const expected = new Map(
    baseline.filter((e) => !isFixtureEntry(e)).map((entry) => [entry.scenario, entry]),
  );
  const unexpectedFailures: string[] = [];
  for (const [scenario, alone] of fixture) {
    if (!alone.passed || expected.has(scenario)) continue;
    const through = gateway.get(scenario);
    if (!through?.passed) unexpectedFailures.push(describeFailure(through, scenario));
  }
  const staleEntries: string[] = [];
  for (const entry of expected.values()) {
    if (fixture.get(entry.scenario)?.passed !== true) {
      staleEntries.push(describeEntry(entry, "the fixture fails it alone, so Airlock is not judged on it"));
    } else if (gateway.get(entry.scenario)?.passed === true) {
      staleEntries.push(describeEntry(entry, "Airlock passes it"));
    }
  }
  return { unexpectedFailures, staleEntries };
}
