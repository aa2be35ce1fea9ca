import { describe, expect, it } from "vitest";
import { DUAL_ERA_FIXTURE, startFixtureHttp } from "./fixture.js";
import { type RequirementSet, runRequirements } from "./suite.js";

/**
 * The fixture of both revisions (`test/fixtures/conformance-dual-era.mjs`, SDK v2), alone over
 * streamable HTTP, against the suite's requirement sets (0.2.0-alpha.12): every scenario each set
 * requires passes, by the rule of `suite.ts` (checks written, none a failure or a warning). It is
 * the reference the gateway's front door is to be measured against for 2026-07-28.
 */
const SETS: readonly RequirementSet[] = ["2025-11-25", "2026-07-28"];

describe("the dual-era conformance fixture, alone", { timeout: 180_000 }, () => {
  it.each(SETS)("passes every server scenario requirement set %s lists", async (set) => {
    const fixture = await startFixtureHttp(DUAL_ERA_FIXTURE);
    try {
      const results = await runRequirements(fixture.value, set);
      const failed = [...results.values()]
        .filter((result) => !result.passed)
        .map((result) => `${result.scenario}: ${result.problems.join("; ")}`);
      expect(failed).toEqual([]);
    } finally {
      await fixture.stop();
    }
  });
});
