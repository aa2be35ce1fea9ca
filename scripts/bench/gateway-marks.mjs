// Preloaded into the gateway by `run.mjs --alternate` (node --import): on every SIGUSR2, appends to
// $BENCH_MARKS_FILE one JSON line with the process's CPU time so far (µs, every thread; the kernel's
// part of it apart) and the heap
// bytes it has allocated since it started (used heap before each collection minus after the one
// before, from V8's GCProfiler), with its minor and major collections. The harness signals between
// batches of calls and takes the differences.
import { appendFileSync } from "node:fs";
import v8 from "node:v8";

const file = process.env.BENCH_MARKS_FILE;
if (file) {
  let profiler = new v8.GCProfiler();
  profiler.start();
  let used = v8.getHeapStatistics().used_heap_size;
  let allocated = 0;
  let minor = 0;
  let major = 0;
  process.on("SIGUSR2", () => {
    const { statistics } = profiler.stop();
    profiler = new v8.GCProfiler();
    profiler.start();
    let before = used;
    for (const gc of statistics) {
      allocated += gc.beforeGC.heapStatistics.usedHeapSize - before;
      before = gc.afterGC.heapStatistics.usedHeapSize;
      if (gc.gcType === "Scavenge" || gc.gcType === "MinorMarkSweep") minor++;
      else major++;
    }
    used = v8.getHeapStatistics().used_heap_size;
    allocated += used - before;
    const { user, system } = process.cpuUsage();
    appendFileSync(
      file,
      `${JSON.stringify({ cpu_us: user + system, system_us: system, allocated, minor, major })}\n`,
    );
  });
}
