import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningAirlock, startFrontDoorAirlock } from "./airlock.js";
import { judgeGateway, parseBaseline, readBaseline } from "./baseline.js";
import { DUAL_ERA_FIXTURE, startFixtureHttp } from "./fixture.js";
import { type RequirementSet, requiredServerScenarios, runRequirements, type SuiteResults } from "./suite.js";

/**
 * Both requirement sets of the suite (0.2.0-alpha.12), each scenario at its revision's wire version:
 *
 * 1. the fixture of both revisions (`test/fixtures/conformance-dual-era.mjs`, SDK v2), alone over
 *    streamable HTTP, passes every scenario each set requires;
 * 2. the same fixture behind Airlock's front door (a stdio child of the gateway, spoken to at
 *    2025-11-25), reached by the suite on the gateway's `/mcp`, passes every one of them too, but
 *    those `expected-failures-<revision>.json` lists with a class and a reason; an entry Airlock
 *    passes is stale and fails the test, as in `conformance.test.ts`.
 */
const SETS: readonly RequirementSet[] = ["2025-11-25", "2026-07-28"];

const baselineOf = (set: RequirementSet) =>
  parseBaseline(
    readBaseline(resolve(`test/conformance/expected-failures-${set}.json`)),
    requiredServerScenarios(set),
  );

const failures = (results: SuiteResults) =>
  [...results.values()]
    .filter((result) => !result.passed)
    .map((result) => `${result.scenario}: ${result.problems.join("; ")}`);

describe("both revisions' requirement sets", { timeout: 240_000 }, () => {
  let airlock: RunningAirlock;
  beforeAll(async () => {
    airlock = await startFrontDoorAirlock(DUAL_ERA_FIXTURE);
  }, 60_000);
  afterAll(async () => {
    await airlock?.stop();
  });

  it.each(SETS)(
    "%s: the fixture passes every required scenario alone, Airlock all but its baseline",
    async (set) => {
      const fixture = await startFixtureHttp(DUAL_ERA_FIXTURE);
      let alone: SuiteResults;
      try {
        alone = await runRequirements(fixture.value, set);
      } finally {
        await fixture.stop();
      }
      expect(failures(alone)).toEqual([]);
      const through = await runRequirements(airlock.mcpUrl, set);
      const judged = judgeGateway(alone, through, baselineOf(set));
      expect(judged.unexpectedFailures).toEqual([]);
      expect(judged.staleEntries).toEqual([]);
    },
  );
});
