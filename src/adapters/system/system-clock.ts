import { performance } from "node:perf_hooks";
import type { Clock } from "../../app/ports/clock.js";

/**
 * The machine's clocks. `now()` is wall time and may jump (NTP, manual changes); `monotonic()` never
 * goes backwards and counts from process start, so only differences between its values mean
 * anything.
 */
export class SystemClock implements Clock {
  now(): number {
    return Date.now();
  }

  monotonic(): number {
    return performance.now();
  }
}
