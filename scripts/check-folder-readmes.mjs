#!/usr/bin/env node
// The architecture guide's folder rule, checked: every top-level folder of `src/` has a README.md
// saying what lives there and what it may import (so it must mention "import"). Exits 1 naming each
// folder that breaks it. Usage: node scripts/check-folder-readmes.mjs [root, default src]
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = process.argv[2] ?? "src";
const problems = [];
for (const entry of readdirSync(root, { withFileTypes: true })) {
  if (!entry.isDirectory()) continue;
  const readme = join(root, entry.name, "README.md");
  let text;
  try {
    text = readFileSync(readme, "utf8");
  } catch {
    problems.push(`${join(root, entry.name)}: no README.md`);
    continue;
  }
  if (!/\bimport/i.test(text)) problems.push(`${readme}: does not say what the folder may import`);
}
for (const problem of problems) console.error(problem);
if (problems.length > 0) process.exit(1);
console.log(`every folder of ${root} has a README.md saying what it may import`);
