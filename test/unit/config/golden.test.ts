/**
 * Golden tests of the configuration schema: each YAML file under test/fixtures/config has the
 * reviewed outcome next to it.
 *
 * - valid/X.yaml: loads without warning; X.expected.json is the whole normalized configuration.
 * - invalid/X.yaml: refused; X.errors.json lists every problem ({path, message, code}). Files named
 *   X.strict.yaml are validated in strict mode. X.txt holds YAML that is deliberately unparseable
 *   (kept out of the formatter, which would refuse it).
 * - warnings/X.yaml: loads with the warnings of X.warnings.json; X.strict.json is the outcome of the
 *   same file in strict mode ({errors} when refused, {warnings} when accepted).
 *
 * `UPDATE_GOLDEN=1 npx vitest run test/unit/config` rewrites the expected files; then run
 * `npx biome format --write test/fixtures/config` and review the diff.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigValidationError } from "../../../src/config/errors.js";
import { type LoadedConfig, parseConfig } from "../../../src/config/load.js";

const FIXTURES = resolve("test/fixtures/config");
const UPDATE = process.env.UPDATE_GOLDEN === "1";
const EXAMPLE_CONFIG = resolve("config.yaml");

function yamlFiles(folder: string): string[] {
  return readdirSync(join(FIXTURES, folder))
    .filter((name) => name.endsWith(".yaml") || name.endsWith(".txt"))
    .sort();
}

function stem(file: string): string {
  return basename(basename(file, ".yaml"), ".txt");
}

type Outcome = { ok: true; loaded: LoadedConfig } | { ok: false; error: ConfigValidationError };

function load(folder: string, file: string, strict: boolean): Outcome {
  const text = readFileSync(join(FIXTURES, folder, file), "utf8");
  try {
    return { ok: true, loaded: parseConfig(text, { env: {}, strict, sourceName: file }) };
  } catch (error) {
    if (error instanceof ConfigValidationError) return { ok: false, error };
    throw error;
  }
}

/** Compares with the golden file, or writes it under UPDATE_GOLDEN=1. */
function expectGolden(actual: unknown, goldenPath: string): void {
  const text = `${JSON.stringify(actual, null, 2)}\n`;
  if (UPDATE) {
    writeFileSync(goldenPath, text);
    return;
  }
  expect(existsSync(goldenPath), `${goldenPath} is missing; run with UPDATE_GOLDEN=1 and review it`).toBe(
    true,
  );
  expect(JSON.parse(text)).toEqual(JSON.parse(readFileSync(goldenPath, "utf8")));
}

describe("valid configuration files", () => {
  for (const file of yamlFiles("valid")) {
    it(`${file} loads without warnings into the configuration of ${stem(file)}.expected.json`, () => {
      const outcome = load("valid", file, true);
      if (!outcome.ok) expect.fail(outcome.error.message);
      expect(outcome.loaded.warnings).toEqual([]);
      expectGolden(outcome.loaded.config, join(FIXTURES, "valid", `${stem(file)}.expected.json`));
    });
  }
});

describe("invalid configuration files", () => {
  for (const file of yamlFiles("invalid")) {
    const strict = file.endsWith(".strict.yaml");
    it(`${file} is refused with every problem of ${stem(file)}.errors.json`, () => {
      const outcome = load("invalid", file, strict);
      if (outcome.ok) expect.fail(`${file} was accepted`);
      expect(outcome.error.issues.length).toBeGreaterThan(0);
      expectGolden(outcome.error.issues, join(FIXTURES, "invalid", `${stem(file)}.errors.json`));
    });
  }
});

describe("configuration files with warnings", () => {
  for (const file of yamlFiles("warnings")) {
    it(`${file} loads with the warnings of ${stem(file)}.warnings.json`, () => {
      const outcome = load("warnings", file, false);
      if (!outcome.ok) expect.fail(outcome.error.message);
      expect(outcome.loaded.warnings.length).toBeGreaterThan(0);
      expectGolden(outcome.loaded.warnings, join(FIXTURES, "warnings", `${stem(file)}.warnings.json`));
    });

    it(`${file} in strict mode gives the outcome of ${stem(file)}.strict.json`, () => {
      const outcome = load("warnings", file, true);
      const actual = outcome.ok ? { warnings: outcome.loaded.warnings } : { errors: outcome.error.issues };
      expectGolden(actual, join(FIXTURES, "warnings", `${stem(file)}.strict.json`));
    });
  }
});

describe("the example configuration", () => {
  it.skipIf(!existsSync(EXAMPLE_CONFIG))("config.yaml at the project root passes strict validation", () => {
    const text = readFileSync(EXAMPLE_CONFIG, "utf8");
    const loaded = parseConfig(text, { env: {}, strict: true, sourceName: "config.yaml" });
    expect(loaded.warnings.filter((warning) => warning.code === "unknown_nested_config_key")).toEqual([]);
  });
});
