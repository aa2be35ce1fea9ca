import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { cruise, type ICruiseResult, type IViolation } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const path = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
const ROOT = path("../../");
const CONFIG = path("../../.dependency-cruiser.cjs");
const FIXTURE = path("../fixtures/layer-rules/");
const README_CHECK = path("../../scripts/check-folder-readmes.mjs");

/** Cruises `src` of `baseDir` with the project's rules, as `npm run lint:deps` does. */
async function cruiseSrc(baseDir: string): Promise<ICruiseResult> {
  const options = await extractDepcruiseOptions(CONFIG);
  const { output } = await cruise(["src"], { ...options, baseDir });
  if (typeof output === "string") throw new Error("expected the cruise result as an object");
  return output;
}

/** `rule: from -> to`, with a package named from its node_modules folder wherever that is. */
const describeViolation = (v: IViolation) =>
  `${v.rule.name}: ${v.from} -> ${v.to.replace(/^.*node_modules\//, "node_modules/")}`;

// Cruising src/ parses about 600 files: five seconds on an idle machine, the bound leaves room for a
// loaded one.
describe("the layer rules (.dependency-cruiser.cjs)", { timeout: 180_000 }, () => {
  it("report each broken rule of the fixture tree, and none of the imports the rules allow", async () => {
    const result = await cruiseSrc(FIXTURE);
    expect(result.summary.violations.map(describeViolation).sort()).toEqual([
      "adapters-import-only-ports-of-app: src/adapters/store/sqlite/bad-sqlite.ts -> src/app/use-case.ts",
      "adapters-not-to-a-sibling: src/adapters/store/sqlite/bad-sqlite.ts -> src/adapters/store/memory/memory-store.ts",
      "adapters-not-to-another-family: src/adapters/notify/bad-sender.ts -> src/adapters/store/table.ts",
      "app-imports-no-node-builtin: src/app/bad-use-case.ts -> events",
      "app-imports-no-package-but-zod: src/app/bad-use-case.ts -> node_modules/fastify/fastify.js",
      "config-imports-no-app: src/config/bad-schema.ts -> src/app/ports/store.ts",
      "domain-imports-only-domain: src/domain/impure.ts -> path",
      "domain-imports-only-domain: src/domain/impure.ts -> src/app/ports/store.ts",
      "edges-never-hold-app-services: src/edges/http/bad-runner.ts -> src/app/services.ts",
      "edges-run-operations-through-the-runner: src/edges/http/bad-runner.ts -> src/app/execute.ts",
      "no-circular: src/app/cycle-a.ts -> src/app/cycle-b.ts",
      "not-to-unresolvable: src/app/unresolved.ts -> ./missing.js",
      "nothing-imports-cli: src/control/bad-loop.ts -> src/cli.ts",
      "only-cli-imports-composition: src/adapters/notify/bad-sender.ts -> src/composition/other.ts",
      "only-composition-imports-adapters: src/app/bad-use-case.ts -> src/adapters/store/memory/memory-store.ts",
      "only-composition-imports-adapters: src/edges/http/bad-route.ts -> src/adapters/store/memory/memory-store.ts",
      "only-composition-imports-config: src/app/bad-use-case.ts -> src/config/schema.ts",
      "only-composition-imports-control: src/app/bad-use-case.ts -> src/control/loop.ts",
      "only-composition-imports-edges: src/adapters/notify/bad-sender.ts -> src/edges/http/route.ts",
      "only-composition-imports-edges: src/app/bad-use-case.ts -> src/edges/http/route.ts",
    ]);
    // The fixture breaks every rule the configuration has: a rule added later needs a case here.
    const options = await extractDepcruiseOptions(CONFIG);
    const rules = (options.ruleSet?.forbidden ?? []).map((rule) => rule.name).sort();
    expect([...new Set(result.summary.violations.map((v) => v.rule.name))].sort()).toEqual(rules);
  });

  it("fail the command CI runs when a rule is broken: its report's exit code is the errors' count", async () => {
    // `depcruise --output-type err-long` (npm run lint:deps) exits with the reporter's exit code.
    const options = await extractDepcruiseOptions(CONFIG);
    const { output, exitCode } = await cruise(["src"], {
      ...options,
      baseDir: FIXTURE,
      outputType: "err-long",
    });
    expect(exitCode).toBe(20);
    expect(output).toContain("error only-composition-imports-adapters: src/edges/http/bad-route.ts");
  });

  it("find nothing to report in the project's src/", async () => {
    const result = await cruiseSrc(ROOT);
    expect(result.summary.violations.map(describeViolation)).toEqual([]);
    expect(result.summary.totalCruised).toBeGreaterThan(500);
  });
});

describe("the folder README check (scripts/check-folder-readmes.mjs)", () => {
  it("names each top-level folder without a README.md saying what it may import", async () => {
    const failure = await run(process.execPath, [README_CHECK, "src"], { cwd: FIXTURE }).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stderr.trim().split("\n").sort()).toEqual([
      "src/control: no README.md",
      "src/edges/README.md: does not say what the folder may import",
    ]);
  });

  it("passes on the project's src/", async () => {
    const { stdout } = await run(process.execPath, [README_CHECK, "src"], { cwd: ROOT });
    expect(stdout).toContain("every folder of src has a README.md");
  });
});
