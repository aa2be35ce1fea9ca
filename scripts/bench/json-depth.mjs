#!/usr/bin/env node
// What the nesting-depth check (`http.max_json_depth`) adds to every JSON a client sends: the
// built check (dist/) on typical `tools/call` bodies, next to the `JSON.parse` every body costs
// anyway. Figures in docs/limits.md, "JSON nesting depth".
//
//   npm run build && node scripts/bench/json-depth.mjs [--rounds N]
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const { jsonTextNestsDeeper } = await import(
  pathToFileURL(join(ROOT, "dist", "domain", "limits", "json-depth.js")).href
);

const { values } = parseArgs({ options: { rounds: { type: "string", default: "5" } } });
const rounds = Number(values.rounds);

const message = (id, name, args) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
const BODIES = {
  // The egress topology's call of one upstream tool (the benchmark's own call).
  gateway_call: message(17, "gateway_call", {
    calls: [{ mcp_server: "echo", tool: "echo", arguments: { text: "hello" } }],
    timeout: 60,
  }),
  // A front-door call carrying a paragraph of text, quotes and backslashes included.
  text_arguments: message(18, "search", {
    query: 'how to "escape" things \\ in JSON, a longer field of free text. '.repeat(12),
    filters: { tags: ["a", "b", "c"], after: "2024-01-01" },
    limit: 20,
  }),
  // 2,000 small objects: more openers than the limit, so the text is scanned whole.
  rows_2000: message(19, "insert", {
    rows: Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `row ${i}`, tags: ["x", "y"] })),
  }),
};

/** Nanoseconds per call of `fn` on `text`, the best of `rounds` timed loops of about 200 ms each. */
function measure(fn, text) {
  let iterations = 1;
  for (;;) {
    const began = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) fn(text);
    if (Number(process.hrtime.bigint() - began) > 20e6) break;
    iterations *= 2;
  }
  iterations *= 10;
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < rounds; round++) {
    const began = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) fn(text);
    best = Math.min(best, Number(process.hrtime.bigint() - began) / iterations);
  }
  return best;
}

const rows = [];
for (const [name, text] of Object.entries(BODIES)) {
  if (jsonTextNestsDeeper(text, 64)) throw new Error(`${name} should be within the limit`);
  const check = measure((t) => jsonTextNestsDeeper(t, 64), text);
  const parse = measure((t) => JSON.parse(t), text);
  rows.push({
    body: name,
    bytes: text.length,
    check_ns: Math.round(check),
    parse_ns: Math.round(parse),
    ratio: `${((check / parse) * 100).toFixed(1)} %`,
  });
}
console.table(rows);
