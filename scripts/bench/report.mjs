// The readable table printed at the end of a run.

const COLUMNS = [
  ["scenario", 34, "left"],
  ["sessions", 8],
  ["calls", 7],
  ["errors", 6],
  ["calls/s", 9],
  ["p50 ms", 8],
  ["p99 ms", 8],
  ["cpu ms/call gw+up+client", 24],
];

function cell(value, width, align) {
  const text = value === null || value === undefined ? "-" : String(value);
  return align === "left" ? text.padEnd(width) : text.padStart(width);
}

function row(values) {
  return values.map((value, i) => cell(value, COLUMNS[i][1], COLUMNS[i][2])).join("  ");
}

const fixed = (value, digits) => (value === null || value === undefined ? null : value.toFixed(digits));

/** CPU per call of the gateway, its upstream and the benchmark's client, as `g + u + c`. */
function cpuCell(cpu) {
  if (!cpu) return null;
  return [cpu.gateway, cpu.upstream, cpu.client]
    .map((ms) => (ms === undefined ? "-" : (fixed(ms, 3) ?? "?")))
    .join(" + ");
}

function scenarioRow(label, s) {
  return row([
    label,
    s.sessions,
    s.calls,
    s.errors,
    fixed(s.calls_per_s, 1),
    fixed(s.latency_ms.p50, 3),
    fixed(s.latency_ms.p99, 3),
    cpuCell(s.cpu_ms_per_call),
  ]);
}

function exitFacts(stop) {
  const how = stop.code === null ? `ended by ${stop.signal}` : `exit code ${stop.code}`;
  return stop.killed ? `${how} (SIGKILL after the grace period)` : how;
}

/** The report as lines of text. */
export function formatReport(results) {
  const { environment: env, gateway, scenarios, ratios } = results;
  const mem = gateway.memory;
  const lines = [
    `Airlock benchmark, ${env.date}`,
    `${env.cpu_count} x ${env.cpu_model}, ${env.total_memory_gib} GiB, ${env.os}, node ${env.node}` +
      (env.git_commit ? `, commit ${env.git_commit}${env.git_dirty ? " (uncommitted changes)" : ""}` : ""),
    `load average before ${env.load_average_before.join(" ")}, after ${env.load_average_after.join(" ")}`,
    "",
    `gateway start-up (spawn to "listening" log line): ${fixed(gateway.startup_ms, 1)} ms`,
    `math cold start (gateway_start, spawn + initialize + tools/list): ${fixed(gateway.upstream_start_ms, 1)} ms`,
    "",
    row(COLUMNS.map(([name]) => name)),
    scenarioRow("A  gateway, 1 session sequential", scenarios.gateway_sequential),
    scenarioRow(
      `B  gateway, ${scenarios.gateway_concurrent.sessions} sessions concurrent`,
      scenarios.gateway_concurrent,
    ),
    scenarioRow("A  direct stdio (baseline)", scenarios.direct_sequential),
    "",
    `gateway/direct, scenario A: calls/s x${fixed(ratios.calls_per_s, 3)}, p50 x${fixed(ratios.p50, 2)}, ` +
      `p99 x${fixed(ratios.p99, 2)}`,
    `gateway RSS: ${mem.idle?.rss_mib ?? "-"} MiB idle after start-up, ${mem.after_run?.rss_mib ?? "-"} MiB ` +
      `after the run, peak ${mem.after_run?.peak_rss_mib ?? "-"} MiB (the gateway process only)`,
    `gateway stop: SIGTERM to exit in ${fixed(gateway.stop.shutdown_ms, 1)} ms, ${exitFacts(gateway.stop)}`,
  ];
  for (const [name, s] of Object.entries(scenarios)) {
    if (s.first_error) lines.push(`first error in ${name}: ${s.first_error}`);
  }
  return lines;
}
