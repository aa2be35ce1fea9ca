import pino from "pino";
import { describe, expect, it } from "vitest";
import { otlpLogs } from "../../../src/adapters/observability/otlp-audit-log-exporter.js";
import { NodeIdGenerator } from "../../../src/adapters/system/node-ids.js";
import { SystemClock } from "../../../src/adapters/system/system-clock.js";
import { EventBus } from "../../../src/app/event-bus.js";
import type { AuditRecord } from "../../../src/app/ports/audit-trail.js";
import { openAuditLogExport } from "../../../src/composition/observability.js";
import { parseConfig } from "../../../src/config/load.js";

const RESOURCE = { serviceName: "edge", serviceVersion: "1.2.3", instanceId: "replica-1" };

function record(overrides: Partial<AuditRecord> = {}): AuditRecord {
  return {
    id: "rec-1",
    occurred_at: 1_763_000_000.123456,
    actor: "alice",
    action: "tool_invocation",
    target: "math",
    outcome: "failure",
    details: { "mcp.tool.name": "add", duration_ms: 12, ratio: 0.5, retried: false, nested: { a: [1] } },
    tenant_id: "acme",
    ...overrides,
  };
}

describe("otlpLogs", () => {
  it("encodes records as an ExportLogsServiceRequest with typed attributes", () => {
    const request = otlpLogs([record()], RESOURCE, 1_763_000_001_000);
    const resourceLogs = request.resourceLogs[0];
    expect(resourceLogs?.resource.attributes).toEqual([
      { key: "service.name", value: { stringValue: "edge" } },
      { key: "service.version", value: { stringValue: "1.2.3" } },
      { key: "service.instance.id", value: { stringValue: "replica-1" } },
    ]);
    const scope = resourceLogs?.scopeLogs[0];
    expect(scope?.scope).toEqual({ name: "airlock.audit", version: "1.2.3" });
    expect(scope?.logRecords).toEqual([
      {
        // Microseconds of the record's time kept exactly (a double of nanoseconds would not).
        timeUnixNano: "1763000000123456000",
        observedTimeUnixNano: "1763000001000000000",
        severityNumber: 13,
        severityText: "WARN",
        body: { stringValue: "tool_invocation failure" },
        attributes: [
          { key: "audit.id", value: { stringValue: "rec-1" } },
          { key: "audit.action", value: { stringValue: "tool_invocation" } },
          { key: "audit.actor", value: { stringValue: "alice" } },
          { key: "audit.target", value: { stringValue: "math" } },
          { key: "audit.outcome", value: { stringValue: "failure" } },
          { key: "audit.tenant_id", value: { stringValue: "acme" } },
          { key: "mcp.tool.name", value: { stringValue: "add" } },
          { key: "duration_ms", value: { intValue: "12" } },
          { key: "ratio", value: { doubleValue: 0.5 } },
          { key: "retried", value: { boolValue: false } },
          { key: "nested", value: { stringValue: '{"a":[1]}' } },
        ],
      },
    ]);
  });

  it("leaves out an absent tenant and says INFO for a success", () => {
    const [log] =
      otlpLogs([record({ tenant_id: null, outcome: "success", details: {} })], RESOURCE, 0).resourceLogs[0]
        ?.scopeLogs[0]?.logRecords ?? [];
    expect(log?.severityText).toBe("INFO");
    expect(log?.attributes.map((entry) => entry.key)).not.toContain("audit.tenant_id");
  });
});

describe("openAuditLogExport", () => {
  const deps = () => {
    const logger = pino({ level: "silent" });
    const clock = new SystemClock();
    const bus = new EventBus({ clock, ids: new NodeIdGenerator(), logger, instanceId: "t" });
    return { bus, clock, logger };
  };
  const observability = (audit: string) =>
    parseConfig(`observability:\n  audit:\n${audit}\n`, { env: {} }).config.observability;

  it("exports only to an endpoint written in the configuration", async () => {
    expect(openAuditLogExport(observability("    enabled: true"), "r", deps())).toBeNull();
    expect(
      openAuditLogExport(
        observability("    enabled: false\n    otlp_endpoint: http://127.0.0.1:4318"),
        "r",
        deps(),
      ),
    ).toBeNull();
    const recorder = openAuditLogExport(
      observability("    otlp_endpoint: http://127.0.0.1:4318"),
      "r",
      deps(),
    );
    expect(recorder?.status()).toMatchObject({ format: "otlp", destination: "otlp", status: "ok" });
    await recorder?.stop();
  });
});
