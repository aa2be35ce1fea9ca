import { AsyncLocalStorage } from "node:async_hooks";

/** The request span active in an async context: its OpenTelemetry context and its ids. */
export interface ActiveSpan {
  /** The OpenTelemetry `Context` holding the span (opaque here: the logger needs only the ids). */
  readonly context: unknown;
  readonly trace_id: string;
  readonly span_id: string;
}

/**
 * Which request span is active, per async context. One store for the process, never registered
 * with the OpenTelemetry API as its global context manager: several gateways in one process each
 * enter their own spans, and nothing else in the process is instrumented. Empty while tracing is
 * off (nothing ever enters it).
 */
export const activeSpans = new AsyncLocalStorage<ActiveSpan>();

/**
 * The log fields of the active span (`trace_id`, `span_id`), or none: pino's `mixin`. A new object
 * each time: pino merges the line's own fields into it.
 */
export function activeSpanLogFields(): Record<string, string> {
  const active = activeSpans.getStore();
  return active === undefined ? {} : { trace_id: active.trace_id, span_id: active.span_id };
}
