// Writes the JSON Schema of the configuration file where it is published: docs/config.schema.json,
// and under `config` in the Helm chart's values.schema.json (the rest of that file is hand-written
// and kept). Run `npm run config:schema` after any change to the configuration schema; a test fails
// while either file is stale.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const { chartValuesSchema, configJsonSchema } = await import(`${root}dist/config/json-schema.js`);

const DOCS = `${root}docs/config.schema.json`;
const CHART = `${root}helm/airlock/values.schema.json`;

const write = (path, value) => writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
write(DOCS, configJsonSchema());
write(CHART, chartValuesSchema(JSON.parse(readFileSync(CHART, "utf8"))));

// The repository's formatter has the last word on layout, so the files stay lint-clean.
const biome = spawnSync(
  process.execPath,
  [`${root}node_modules/@biomejs/biome/bin/biome`, "format", "--write", DOCS, CHART],
  {
    stdio: "inherit",
  },
);
process.exit(biome.status ?? 1);
