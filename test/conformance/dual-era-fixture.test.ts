import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  frontDoorConfig,
  type RunningAirlock,
  remoteFrontDoorConfig,
  startFrontDoorAirlock,
} from "./airlock.js";
import { forUpstream, judgeGateway, parseBaseline, readBaseline } from "./baseline.js";
import { CONFORMANCE_FIXTURE, startFixtureHttp } from "./fixture.js";
import { type RequirementSet, requiredServerScenarios, runRequirements, type SuiteResults } from "./suite.js";

/**
 * Both requirement sets of the suite (0.2.0-alpha.12), each scenario at its revision's wire version:
 *
 * 1. the fixture of both revisions (`test/fixtures/conformance-dual-era.mjs`, SDK v2), alone over
 *    streamable HTTP, passes every scenario each set requires;
 * 2. the same fixture behind Airlock's front door, reached by the suite on the gateway's `/mcp`,
 *    passes every one of them too, but those `expected-failures-<revision>.json` lists with a
 *    class and a reason; an entry Airlock passes is stale and fails the test, as in
 *    `conformance.test.ts`. Twice: the fixture a stdio child of the gateway, which Airlock speaks
 *    2025-11-25 to, and a `remote` server over streamable HTTP, which Airlock speaks 2026-07-28 to
 *    (its `server/discover` serves it); an entry may hold for one of the two (`upstream`).
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

describe("both revisions' requirement sets", { timeout: 300_000 }, () => {
  let fixture: Awaited<ReturnType<typeof startFixtureHttp>>;
  let overStdio: RunningAirlock;
  let overHttp: RunningAirlock;
  beforeAll(async () => {
    fixture = await startFixtureHttp(CONFORMANCE_FIXTURE);
    overStdio = await startFrontDoorAirlock(frontDoorConfig(CONFORMANCE_FIXTURE));
    overHttp = await startFrontDoorAirlock(remoteFrontDoorConfig(fixture.value));
  }, 60_000);
  afterAll(async () => {
    await overStdio?.stop();
    await overHttp?.stop();
    await fixture?.stop();
  });

  it.each(SETS)(
    "%s: the fixture passes every required scenario alone, Airlock all but its baseline",
    async (set) => {
      const alone = await runRequirements(fixture.value, set);
      expect(failures(alone)).toEqual([]);
      for (const [upstream, airlock] of [
        ["stdio", overStdio],
        ["remote", overHttp],
      ] as const) {
        const baseline = forUpstream(baselineOf(set), upstream);
        const judged = judgeGateway(alone, await runRequirements(airlock.mcpUrl, set), baseline);
        expect(judged.unexpectedFailures, upstream).toEqual([]);
        expect(judged.staleEntries, upstream).toEqual([]);
      }
    },
  );
});
