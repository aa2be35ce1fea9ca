import pino from "pino";
import { describe, expect, it } from "vitest";
import { OtlpAuditLogExporter } from "../../../src/adapters/observability/otlp-audit-log-exporter.js";
import { NodeIdGenerator } from "../../../src/adapters/system/node-ids.js";
import { SystemClock } from "../../../src/adapters/system/system-clock.js";
import { EventBus } from "../../../src/app/event-bus.js";
import type { AuditRecord } from "../../../src/app/ports/audit-trail.js";
import { openAuditLogExport } from "../../../src/composition/observability.js";
import { parseConfig } from "../../../src/config/load.js";
import { startOtlpCollector } from "../../support/otlp-collector.js";

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

describe("the OTLP audit log exporter", () => {
  it("posts records as OTLP/HTTP JSON log records with typed attributes, the resource and the scope", async () => {
    const collector = await startOtlpCollector();
    try {
      const exporter = new OtlpAuditLogExporter(
        `${collector.endpoint}/v1/logs`,
        RESOURCE,
        () => 1_763_000_001_000,
      );
      await exporter.write([record()]);
      expect(collector.logs).toHaveLength(1);
      const log = collector.logs[0];
      expect(log?.resource).toMatchObject({
        "service.name": "edge",
        "service.version": "1.2.3",
        "service.instance.id": "replica-1",
      });
      expect(log?.scope).toBe("airlock.audit");
      expect(log).toMatchObject({
        // Microseconds of the record's time kept exactly (a double of nanoseconds would not).
        timeUnixNano: "1763000000123456000",
        observedTimeUnixNano: "1763000001000000000",
        severityNumber: 13,
        severityText: "WARN",
        body: "tool_invocation failure",
      });
      expect(log?.rawAttributes).toEqual([
        { key: "audit.id", value: { stringValue: "rec-1" } },
        { key: "audit.action", value: { stringValue: "tool_invocation" } },
        { key: "audit.actor", value: { stringValue: "alice" } },
        { key: "audit.target", value: { stringValue: "math" } },
        { key: "audit.outcome", value: { stringValue: "failure" } },
        { key: "audit.tenant_id", value: { stringValue: "acme" } },
        { key: "mcp.tool.name", value: { stringValue: "add" } },
        { key: "duration_ms", value: { intValue: 12 } },
        { key: "ratio", value: { doubleValue: 0.5 } },
        { key: "retried", value: { boolValue: false } },
        { key: "nested", value: { stringValue: '{"a":[1]}' } },
      ]);
    } finally {
      await collector.close();
    }
  });

  it("leaves out an absent tenant and says INFO for a success", async () => {
    const collector = await startOtlpCollector();
    try {
      const exporter = new OtlpAuditLogExporter(`${collector.endpoint}/v1/logs`, RESOURCE);
      await exporter.write([record({ tenant_id: null, outcome: "success", details: {} })]);
      expect(collector.logs[0]?.severityText).toBe("INFO");
      expect(Object.keys(collector.logs[0]?.attributes ?? {})).not.toContain("audit.tenant_id");
    } finally {
      await collector.close();
    }
  });

  it("rejects a refused write with the status as its code, never the URL", async () => {
    const collector = await startOtlpCollector();
    collector.refusals.push(400);
    try {
      const exporter = new OtlpAuditLogExporter(
        `${collector.endpoint.replace("//", "//u:secret@")}/v1/logs`,
        RESOURCE,
      );
      const failure = await exporter.write([record()]).catch((error: unknown) => error);
      expect(failure).toMatchObject({ code: "http_400" });
      expect(String((failure as Error).message)).not.toContain("secret");
      expect(collector.logs).toEqual([]);
    } finally {
      await collector.close();
    }
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
