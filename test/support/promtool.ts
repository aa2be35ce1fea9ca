import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe } from "vitest";

/** Prometheus' own checker, from Debian's `prometheus` package; `.ci/run` installs it when missing. */
export const PROMTOOL = process.env.PROMTOOL_PATH ?? "/usr/bin/promtool";

/**
 * `describe` for suites that need promtool: skipped when it is not installed, except under
 * `CI=true`, where the suite runs and fails (CI must never pass by skipping).
 */
export function describePromtool(name: string, body: () => void): void {
  if (!existsSync(PROMTOOL) && process.env.CI !== "true") {
    describe.skip(`${name} (${PROMTOOL} is missing: install Debian's prometheus package)`, body);
    return;
  }
  describe(name, body);
}

export interface PromtoolResult {
  code: number | null;
  output: string;
}

/** Runs promtool with `args`, `input` on its standard input. */
export function promtool(args: string[], input?: string): PromtoolResult {
  const result = spawnSync(PROMTOOL, args, {
    encoding: "utf8",
    timeout: 20_000,
    ...(input !== undefined && { input }),
  });
  if (result.error) throw result.error;
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}
