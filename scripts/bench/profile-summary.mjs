#!/usr/bin/env node
// Self time of a V8 CPU profile (`node --cpu-prof`), by function and by where the code lives:
// the gateway's own code (dist/ named after its src/ file), each npm package, Node.js itself,
// the garbage collector, idle.
//
//   node scripts/bench/profile-summary.mjs FILE.cpuprofile [--top N]
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

/** Where a frame's code lives, from its URL; dist/ files are named after their src/ source. */
export function place(url, functionName) {
  if (!url) {
    if (functionName === "(garbage collector)") return "gc";
    if (functionName === "(idle)") return "idle";
    if (functionName === "(program)") return "program";
    return "native";
  }
  if (url.startsWith("node:")) return "node";
  const path = url.startsWith("file://") ? fileURLToPath(url) : url;
  const modules = path.lastIndexOf("/node_modules/");
  if (modules >= 0) {
    const rest = path.slice(modules + "/node_modules/".length).split("/");
    return `npm:${rest[0].startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  const dist = path.lastIndexOf("/dist/");
  if (dist >= 0) return `src/${path.slice(dist + "/dist/".length).replace(/\.js$/, ".ts")}`;
  return path;
}

/**
 * Self time per function and per place, in ms and as a share of the time summarized (idle
 * included, so shares add up to the wall time covered). With `window` ({fromUs, toUs}, on the
 * monotonic clock of `process.hrtime`, which V8's profile timestamps share on Linux) only the
 * samples taken within it count: the workload without the start-up before it.
 */
export function summarizeProfile(profile, window = null) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map();
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (window !== null && (at < window.fromUs || at > window.toUs)) continue;
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  }
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const functions = new Map();
  const places = new Map();
  for (const [id, us] of selfUs) {
    const { callFrame } = byId.get(id);
    const where = place(callFrame.url, callFrame.functionName);
    // A src/ file is named from its dist/ build, whose line numbers are not the source's.
    const line = where.startsWith("src/") ? "" : `:${callFrame.lineNumber + 1}`;
    const name = `${callFrame.functionName || "(anonymous)"} ${where}${line}`;
    const fn = functions.get(name) ?? { name, place: where, us: 0 };
    fn.us += us;
    functions.set(name, fn);
    places.set(where, (places.get(where) ?? 0) + us);
  }
  const ms = (us) => Math.round(us / 100) / 10;
  const share = (us) => Math.round((us / total) * 1000) / 10;
  const sorted = (entries) => entries.sort((a, b) => b.us - a.us);
  return {
    total_ms: ms(total),
    places: sorted([...places].map(([name, us]) => ({ name, us }))).map((p) => ({
      name: p.name,
      self_ms: ms(p.us),
      share_pct: share(p.us),
    })),
    functions: sorted([...functions.values()]).map((f) => ({
      name: f.name,
      place: f.place,
      self_ms: ms(f.us),
      share_pct: share(f.us),
    })),
  };
}

/** The summary as lines: places, the top functions overall, the top functions in src/. */
export function formatProfile(summary, top = 15) {
  const line = (entry) =>
    `  ${String(entry.share_pct.toFixed(1)).padStart(5)}%  ${String(entry.self_ms.toFixed(1)).padStart(9)} ms  ${entry.name}`;
  const busy = summary.places.filter((p) => p.name !== "idle");
  const own = summary.functions.filter((f) => f.place.startsWith("src/"));
  const ownTotal = own.reduce((total, f) => total + f.self_ms, 0);
  return [
    `profile: ${summary.total_ms.toFixed(0)} ms in all; self time by place (idle: ${
      summary.places.find((p) => p.name === "idle")?.share_pct ?? 0
    }%):`,
    ...busy.slice(0, top).map(line),
    `top ${top} functions by self time:`,
    ...summary.functions
      .filter((f) => f.place !== "idle")
      .slice(0, top)
      .map(line),
    `top ${top} functions of src/ (src/ in all: ${ownTotal.toFixed(1)} ms):`,
    ...own.slice(0, top).map(line),
  ];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: "string", default: "15" } },
  });
  if (positionals.length !== 1) {
    console.error("usage: node scripts/bench/profile-summary.mjs FILE.cpuprofile [--top N]");
    process.exit(1);
  }
  const summary = summarizeProfile(JSON.parse(readFileSync(positionals[0], "utf8")));
  console.log(formatProfile(summary, Number(values.top)).join("\n"));
}
