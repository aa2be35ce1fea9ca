// The ratios of a run and the readable summary printed at its end.

const COLUMNS = [
  ["target", 30, "left"],
  ["workload", 9, "left"],
  ["calls", 6],
  ["errors", 6],
  ["calls/s", 8],
  ["p50 ms", 7],
  ["p99 ms", 7],
  ["cpu ms/call srv+client", 22],
  ["of it srv alone", 15],
];

function cell(value, width, align) {
  const text = value === null || value === undefined ? "-" : String(value);
  return align === "left" ? text.padEnd(width) : text.padStart(width);
}

function row(values) {
  return values.map((value, i) => cell(value, COLUMNS[i][1], COLUMNS[i][2])).join(" ");
}

const fixed = (value, digits) => (value === null || value === undefined ? null : value.toFixed(digits));
const signed = (value) => (value === null ? "-" : `${value >= 0 ? "+" : ""}${value.toFixed(2)}`);
const ratio = (a, b) => (a == null || b == null || b === 0 ? null : Math.round((a / b) * 1000) / 1000);

/** One row of the table: `label`, then the figures of one workload's run `s`. */
function workloadRow(label, s) {
  const cpu = s.cpu_ms_per_call;
  return row([
    label,
    `${s.sessions}x${s.calls / s.sessions}`,
    s.calls,
    s.errors,
    fixed(s.calls_per_s, 1),
    fixed(s.latency_ms.p50, 2),
    fixed(s.latency_ms.p99, 2),
    cpu ? `${fixed(cpu.server, 3) ?? "?"} + ${fixed(cpu.client, 3) ?? "?"}` : null,
    cpu ? fixed(cpu.server_alone, 3) : null,
  ]);
}

const WORKLOADS = [
  ["sequential", "1x"],
  ["concurrent", "16x"],
];

/**
 * Per workload: the best peer by calls/s and by p99, and for each Airlock target its calls/s over
 * the best peer's and the ceiling's, and its p99 over the best peer p99.
 */
export function ratios(targets) {
  const out = {};
  const entries = Object.entries(targets);
  for (const [workload] of WORKLOADS) {
    const peers = entries.filter(([, t]) => t.peer).map(([id, t]) => ({ id, s: t[workload] }));
    const fastest = peers.reduce(
      (best, p) => (best === null || p.s.calls_per_s > best.s.calls_per_s ? p : best),
      null,
    );
    const lowestP99 = peers.reduce(
      (best, p) => (best === null || p.s.latency_ms.p99 < best.s.latency_ms.p99 ? p : best),
      null,
    );
    const ceiling = targets.ceiling?.[workload] ?? null;
    out[workload] = {
      best_peer: fastest?.id ?? null,
      best_peer_p99: lowestP99?.id ?? null,
    };
    for (const [id, t] of entries.filter(([, t]) => t.airlock)) {
      out[workload][id] = {
        calls_per_s_vs_best_peer: ratio(t[workload].calls_per_s, fastest?.s.calls_per_s),
        calls_per_s_vs_ceiling: ratio(t[workload].calls_per_s, ceiling?.calls_per_s),
        p99_vs_best_peer: ratio(t[workload].latency_ms.p99, lowestP99?.s.latency_ms.p99),
      };
    }
  }
  return out;
}

const verdict = (ok) => (ok === null ? "n/a" : ok ? "met" : "NOT met");

/** The targets of the performance work, each with the run's figure and whether it is met. */
function goals(results) {
  const lines = [];
  const fd = results.targets.airlock_front_door;
  const r = results.ratios;
  if (fd) {
    for (const [workload, short] of WORKLOADS) {
      const x = r[workload].airlock_front_door;
      lines.push(
        `  front door ${short}: x${fixed(x.calls_per_s_vs_ceiling, 2)} of the ceiling (goal >= 0.8: ` +
          `${verdict(x.calls_per_s_vs_ceiling === null ? null : x.calls_per_s_vs_ceiling >= 0.8)}), ` +
          `x${fixed(x.calls_per_s_vs_best_peer, 2)} of the faster peer (goal >= 1.6: ` +
          `${verdict(x.calls_per_s_vs_best_peer === null ? null : x.calls_per_s_vs_best_peer >= 1.6)}), ` +
          `errors ${fd[workload].errors}`,
      );
    }
    const p99 = r.concurrent.airlock_front_door.p99_vs_best_peer;
    lines.push(
      `  front door 16x p99: x${fixed(p99, 2)} of the best peer's (goal <= 1: ${verdict(p99 === null ? null : p99 <= 1)})`,
    );
  }
  const rest = results.rest;
  if (rest.airlock && rest.bare_fastify) {
    const x = ratio(rest.airlock.requests_per_s, rest.bare_fastify.requests_per_s);
    lines.push(`  REST: x${fixed(x, 2)} of bare fastify (goal >= 0.5: ${verdict(x >= 0.5)})`);
  }
  if (results.fleet) {
    const f = results.fleet;
    lines.push(
      `  ${f.servers} servers: start-up ${fixed(f.startup_ms, 0)} ms (goal < 2000: ${verdict(f.startup_ms < 2000)}), ` +
        `RSS ${f.rss_mib.settled} MiB (goal < 150: ${verdict(f.rss_mib.settled < 150)})`,
    );
  }
  if (results.appends) {
    for (const [backend, goal] of [
      ["sqlite", 20_000],
      ["postgres", 5_000],
    ]) {
      const best = Math.max(
        ...results.appends.rows
          .filter((x) => x.backend === backend && (x.scenario === "burst" || x.scenario === "producers"))
          .map((x) => x.appends_per_s),
      );
      lines.push(
        Number.isFinite(best)
          ? `  event appends ${backend}: ${best}/s, best grouped scenario (goal >= ${goal}: ${verdict(best >= goal)})`
          : `  event appends ${backend}: skipped`,
      );
    }
  }
  return lines;
}

/** The report as lines of text. */
export function formatReport(results) {
  const { environment: env, targets, rest, appends, fleet } = results;
  const lines = [
    `Airlock benchmark, ${env.date}${results.parameters.quick ? " (quick)" : ""}`,
    `${env.cpu_count} x ${env.cpu_model}, ${env.total_memory_gib} GiB, ${env.os}, node ${env.node}` +
      (env.git_commit ? `, commit ${env.git_commit}${env.git_dirty ? " (uncommitted changes)" : ""}` : ""),
    `versions: ${Object.entries(env.versions)
      .map(([name, version]) => `${name} ${version ?? "?"}`)
      .join(", ")}`,
    `load average before ${env.load_average_before.join(" ")}, after ${env.load_average_after.join(" ")}`,
    `dist/ built ${env.dist_built_at}` +
      (env.dist_rebuilt_during_run
        ? "; WARNING: dist/ was rebuilt during the run, which measured two builds"
        : ""),
  ];
  if (Object.keys(targets).length > 0) {
    lines.push("", row(COLUMNS.map(([name]) => name)));
    for (const t of Object.values(targets)) {
      for (const [workload, short] of WORKLOADS) {
        const s = t[workload];
        lines.push(workloadRow(t.label, s));
        if (s.first_error) lines.push(`  first error (${short}): ${s.first_error}`);
      }
    }
    lines.push("");
    for (const [workload, short] of WORKLOADS) {
      const r = results.ratios[workload];
      for (const [id, t] of Object.entries(targets).filter(([, t]) => t.airlock)) {
        const x = r[id];
        lines.push(
          `${t.label} ${short}: calls/s x${fixed(x.calls_per_s_vs_best_peer, 2)} of the best peer (${r.best_peer}), ` +
            `x${fixed(x.calls_per_s_vs_ceiling, 2)} of the ceiling; p99 x${fixed(x.p99_vs_best_peer, 2)} of the best peer's (${r.best_peer_p99})`,
        );
      }
    }
    lines.push(
      `server RSS after the run (MiB, process tree): ${Object.values(targets)
        .map((t) => `${t.label} ${fixed(t.rss_mib_after, 1) ?? "-"}`)
        .join("; ")}`,
    );
  }
  if (rest.airlock || rest.bare_fastify) {
    lines.push("", "REST GET /api/system/ (autocannon, 10 connections):");
    for (const [name, r] of [
      ["Airlock (API key)", rest.airlock],
      ["bare fastify", rest.bare_fastify],
    ]) {
      if (r) {
        lines.push(
          `  ${name.padEnd(18)} ${fixed(r.requests_per_s, 0).padStart(7)} req/s, p50 ${r.latency_ms.p50} ms, ` +
            `p99 ${r.latency_ms.p99} ms, failures ${r.failures}`,
        );
      }
    }
  }
  if (appends) {
    lines.push("", `event appends (event-appends.mjs, ${appends.events} events):`);
    for (const a of appends.rows) {
      const wait = a.wait_ms ? `, wait p50 ${a.wait_ms.p50} ms, p99 ${a.wait_ms.p99} ms` : "";
      lines.push(
        `  ${a.backend.padEnd(9)}${a.label.padEnd(28)}${String(a.appends_per_s).padStart(8)}/s${wait}`,
      );
    }
    for (const name of appends.skipped) lines.push(`  ${name}: skipped (unreachable)`);
  }
  if (fleet) {
    const run = fleet.running;
    lines.push(
      "",
      `${fleet.servers} configured servers (egress): start-up ${fixed(fleet.startup_ms, 0)} ms, RSS ` +
        `${fleet.rss_mib.at_listen} MiB at listen, ${fleet.rss_mib.settled} MiB 1 s later`,
      `  gateway_list (${fleet.gateway_list.mcp_servers_listed} servers): p50 ${fixed(fleet.gateway_list.latency_ms.p50, 2)} ms, ` +
        `p99 ${fixed(fleet.gateway_list.latency_ms.p99, 2)} ms, errors ${fleet.gateway_list.errors}`,
      `  ${run.started} upstreams started (mean ${fixed(run.cold_start_ms_mean, 0)} ms each): gateway ` +
        `${signed(run.gateway_mib_per_upstream)} MiB RSS per upstream, each upstream process ` +
        `${fixed(run.upstream_rss_mib_mean, 1)} MiB RSS`,
    );
  }
  if (results.commit) lines.push("", ...formatCommit(results.commit));
  const goalLines = goals(results);
  if (goalLines.length > 0) lines.push("", "goals:", ...goalLines);
  return lines;
}

/** Percent change from `from` to `to`, signed, one decimal. */
const change = (from, to) =>
  from ? `${to >= from ? "+" : ""}${(((to - from) / from) * 100).toFixed(1)} %` : "-";

/** The commit section: every run, then what before_answer costs against after_answer (means of the rounds). */
function formatCommit(commit) {
  const lines = [
    `event_store.commit, Airlock egress (gateway_call), ${commit.rounds} round(s), in run order:`,
    row(COLUMNS.map(([name]) => name)),
  ];
  for (const run of commit.runs) {
    for (const [workload] of WORKLOADS) {
      lines.push(workloadRow(`${run.backend} ${run.commit} #${run.round}`, run[workload]));
    }
  }
  lines.push("before_answer against after_answer (means of the rounds):");
  for (const [backend, modes] of Object.entries(commit.means)) {
    const after = modes.after_answer;
    const before = modes.before_answer;
    if (!after || !before) continue;
    for (const [workload, short] of WORKLOADS) {
      const a = after[workload];
      const b = before[workload];
      lines.push(
        `  ${backend} ${short}: calls/s ${a.calls_per_s} -> ${b.calls_per_s} (${change(a.calls_per_s, b.calls_per_s)}), ` +
          `p50 ${a.p50_ms} -> ${b.p50_ms} ms, p99 ${a.p99_ms} -> ${b.p99_ms} ms, ` +
          `gateway CPU ${a.server_cpu_ms_per_call ?? "-"} -> ${b.server_cpu_ms_per_call ?? "-"} ms/call`,
      );
    }
  }
  for (const name of commit.skipped) lines.push(`  ${name}: skipped (unreachable)`);
  return lines;
}
