// What `event_store.commit: before_answer` costs against `after_answer`: the egress gateway
// (gateway_call) under the same workloads as the MCP section, on SQLite and on PostgreSQL. Every
// configuration runs once per round; within a round the two modes of a backend run back to back,
// in alternating order (after/before, then before/after), so that the machine's other load falls on
// both alike. See the "Commit modes" section of docs/benchmarks.md.
import { randomBytes } from "node:crypto";
import pg from "pg";

export const COMMIT_MODES = ["after_answer", "before_answer"];
const BACKENDS = ["sqlite", "postgres"];

/**
 * Runs `measure(name, backend, commit, connection)` for every round, backend and mode, and
 * answers every run and the mean of each configuration over the rounds. `connection` is null on
 * SQLite; on PostgreSQL it holds the driver settings of a fresh schema of `databaseUrl` (the
 * search path set through the driver's `options`), dropped after the run. PostgreSQL is skipped
 * with a note when unreachable.
 */
export async function measureCommitModes({ rounds, databaseUrl, measure, step }) {
  const postgres = await reachable(databaseUrl);
  const runs = [];
  for (let round = 1; round <= rounds; round++) {
    const modes = round % 2 === 1 ? COMMIT_MODES : [...COMMIT_MODES].reverse();
    for (const backend of BACKENDS) {
      if (backend === "postgres" && !postgres) continue;
      for (const commit of modes) {
        step(`event_store.commit: ${commit} on ${backend}, round ${round} of ${rounds}`);
        const name = `commit-${backend}-${commit}-${round}`;
        const result =
          backend === "postgres"
            ? await inFreshSchema(databaseUrl, (connection) => measure(name, backend, commit, connection))
            : await measure(name, backend, commit, null);
        runs.push({ backend, commit, round, sequential: result.sequential, concurrent: result.concurrent });
      }
    }
  }
  return { rounds, skipped: postgres ? [] : ["postgres"], runs, means: means(runs) };
}

async function reachable(databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query("select 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** A schema of its own for one run: created before, dropped after, whatever the run's outcome. */
async function inFreshSchema(databaseUrl, run) {
  const schema = `bench_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    await admin.query(`create schema ${schema}`);
    const url = new URL(databaseUrl);
    return await run({
      host: url.hostname,
      port: Number(url.port || 5432),
      ...(url.username && { user: decodeURIComponent(url.username) }),
      ...(url.password && { password: decodeURIComponent(url.password) }),
      database: decodeURIComponent(url.pathname.slice(1)),
      options: `-c search_path=${schema}`,
    });
  } finally {
    await admin.query(`drop schema if exists ${schema} cascade`).catch(() => {});
    await admin.end();
  }
}

const mean = (values) => values.reduce((total, value) => total + value, 0) / values.length;
const round2 = (value) => Math.round(value * 100) / 100;

/** Per backend, mode and workload: calls/s, p50, p99 and the server's CPU per call, averaged over the rounds. */
function means(runs) {
  const out = {};
  for (const backend of BACKENDS) {
    for (const commit of COMMIT_MODES) {
      const mine = runs.filter((run) => run.backend === backend && run.commit === commit);
      if (mine.length === 0) continue;
      out[backend] ??= {};
      out[backend][commit] = {};
      for (const workload of ["sequential", "concurrent"]) {
        const figures = mine.map((run) => run[workload]);
        out[backend][commit][workload] = {
          calls_per_s: round2(mean(figures.map((f) => f.calls_per_s))),
          p50_ms: round2(mean(figures.map((f) => f.latency_ms.p50))),
          p99_ms: round2(mean(figures.map((f) => f.latency_ms.p99))),
          server_cpu_ms_per_call: figures.every((f) => f.cpu_ms_per_call?.server_alone != null)
            ? Math.round(mean(figures.map((f) => f.cpu_ms_per_call.server_alone)) * 1000) / 1000
            : null,
        };
      }
    }
  }
  return out;
}
