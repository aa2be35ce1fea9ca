// Drives calls: one session sequentially, or several sessions at once.
import { performance } from "node:perf_hooks";
import { summarize } from "./stats.mjs";

/**
 * Runs `count` calls one after another; `call` resolves to true on success, false on an error
 * payload, and may throw (also an error). Returns each call's latency and the error count.
 */
export async function runSequential(call, count, shouldStop = () => false) {
  const latenciesMs = [];
  let errors = 0;
  let firstError = null;
  for (let i = 0; i < count && !shouldStop(); i++) {
    const began = performance.now();
    let ok = false;
    try {
      ok = await call();
    } catch (error) {
      firstError ??= error instanceof Error ? error.message : String(error);
    }
    latenciesMs.push(performance.now() - began);
    if (!ok) errors++;
  }
  return { latenciesMs, errors, firstError };
}

/**
 * Runs `count` sequential calls in each of the given sessions concurrently (one `call` function
 * per session) and summarizes them together: throughput is all calls over the wall time.
 */
export async function runScenario(calls, count, shouldStop) {
  const began = performance.now();
  const runs = await Promise.all(calls.map((call) => runSequential(call, count, shouldStop)));
  const wallMs = performance.now() - began;
  const summary = summarize({
    latenciesMs: runs.flatMap((run) => run.latenciesMs),
    errors: runs.reduce((total, run) => total + run.errors, 0),
    wallMs,
    sessions: calls.length,
  });
  const firstError = runs.find((run) => run.firstError !== null)?.firstError ?? null;
  return firstError === null ? summary : { ...summary, first_error: firstError };
}
