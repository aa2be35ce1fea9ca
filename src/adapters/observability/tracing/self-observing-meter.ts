import { type Attributes, createNoopMeter, type Meter, type MeterProvider } from "@opentelemetry/api";
import type { TelemetryHealth } from "../telemetry-health.js";

/** The SDK span processor's count of spans it finished with (`otel.sdk.processor.span.processed`). */
const PROCESSED = "otel.sdk.processor.span.processed";

/**
 * A meter provider for the span processor's self-observability (its `selfObsMeterProvider`): of
 * what it records, only the spans it finished with an `error.type` are kept, as dropped spans
 * (`queue_full` when its queue was full, else `export_failed`). Everything else is a no-op.
 */
export function selfObservingMeterProvider(health: TelemetryHealth): MeterProvider {
  const noop = createNoopMeter();
  const meter: Meter = Object.assign(Object.create(noop) as Meter, {
    createCounter: (name: string, options?: object) => {
      if (name !== PROCESSED) return noop.createCounter(name, options);
      return {
        add(count: number, attributes?: Attributes) {
          const error = attributes?.["error.type"];
          if (error === undefined) return;
          health.spansDropped(error === "queue_full" ? "queue_full" : "export_failed", count);
        },
      };
    },
  });
  return { getMeter: () => meter };
}
