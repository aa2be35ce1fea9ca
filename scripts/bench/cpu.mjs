// CPU time of the processes taking part in a scenario (Linux /proc; null elsewhere).
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** Clock ticks per second of /proc/<pid>/stat times; 100 on every mainstream Linux build. */
const TICKS_PER_S = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU time of a process in ms (10 ms resolution), or null when unreadable. */
export function processCpuMs(pid) {
  if (pid === null || pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the parenthesised command name start with field 3 (state); utime is 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_S) * 1000;
  } catch {
    return null;
  }
}

/** Ids of a process's children (the gateway's upstream servers), or [] when unreadable. */
export function childPids(pid) {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8")
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map(Number),
    );
  } catch {
    return [];
  }
}

/** A process and all its descendants, the process first. */
export function processTree(pid) {
  const all = [pid];
  for (let i = 0; i < all.length; i++) all.push(...childPids(all[i]));
  return all;
}

/**
 * CPU ms of a process and its descendants alive now (a proxy's upstreams). A descendant that
 * exited meanwhile takes its time with it, so read it while the processes still run.
 */
export function treeCpuMs(pid) {
  if (pid === null || pid === undefined) return null;
  const values = processTree(pid).map(processCpuMs);
  if (values[0] === null) return null;
  return values.reduce((total, value) => total + (value ?? 0), 0);
}

/** CPU time of this process (the benchmark's clients) in ms. */
export function selfCpuMs() {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * Runs `work` (resolving to a scenario summary with `calls`) and adds `cpu_ms_per_call`: for each
 * named probe (a function returning CPU ms, or null), the CPU it used during the work per call.
 */
export async function withCpu(probes, work) {
  const before = Object.fromEntries(Object.entries(probes).map(([name, probe]) => [name, probe()]));
  const summary = await work();
  const perCall = {};
  for (const [name, probe] of Object.entries(probes)) {
    const after = probe();
    perCall[name] =
      after === null || before[name] === null || summary.calls === 0
        ? null
        : Math.round(((after - before[name]) / summary.calls) * 1000) / 1000;
  }
  return { ...summary, cpu_ms_per_call: perCall };
}
