#!/usr/bin/env node
// Renders a configuration template for the container: every `${NAME}` (upper-case letters, digits
// and `_`) inside a string value is replaced by the environment variable NAME.
//
//   node deploy/render-config.mjs <template.yaml> <output.yaml>
//
// Why: the gateway reads its configuration from one file and does not expand variables, while an
// orchestrator hands secrets (database URL, Redis URL, OIDC settings) over as environment variables
// from its secret store. The Helm chart runs this as an init step: the template (a ConfigMap, no
// secret in it) becomes a file in an in-memory volume that only the gateway's user can read.
//
// Only string values are touched (never keys, never comments), so a secret holding `:` or `#`
// cannot change the document's structure. A referenced variable that is unset or empty stops with
// exit 1, naming the key and the variable, never the value.
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { isScalar, parseDocument, visit } from "yaml";

const REFERENCE = /\$\{([A-Z_][A-Z0-9_]*)\}/g;

function fail(message) {
  process.stderr.write(`error: ${message}\n`);
  process.exit(1);
}

const [templatePath, outputPath] = process.argv.slice(2);
if (!templatePath || !outputPath) fail("usage: render-config.mjs <template.yaml> <output.yaml>");

let text;
try {
  text = readFileSync(templatePath, "utf8");
} catch (error) {
  fail(`cannot read ${templatePath}: ${error.code ?? error.message}`);
}
const document = parseDocument(text, { merge: true });
if (document.errors.length > 0) fail(`${templatePath}: ${document.errors[0].message}`);

const problems = [];
visit(document, {
  Scalar(key, node, path) {
    if (key === "key" || !isScalar(node) || typeof node.value !== "string") return;
    if (!node.value.includes("${")) return;
    node.value = node.value.replace(REFERENCE, (_match, name) => {
      const value = process.env[name];
      if (value === undefined || value === "") {
        const where = path
          .filter((ancestor) => ancestor.key !== undefined)
          .map((pair) => String(pair.key))
          .join(".");
        problems.push(`${where || "(document)"}: environment variable ${name} is not set`);
        return "";
      }
      return value;
    });
  },
});
if (problems.length > 0) fail(problems.join("\n       "));

writeFileSync(outputPath, document.toString({ lineWidth: 0 }), { mode: 0o600 });
// writeFileSync keeps the mode of an existing file: make sure a re-render is private too.
chmodSync(outputPath, 0o600);
