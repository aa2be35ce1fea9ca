import { hostname } from "node:os";
import { openComplianceExporter } from "../adapters/observability/compliance-export.js";
import { PromGatewayMetrics } from "../adapters/observability/metrics.js";
import { OtlpAuditLogExporter } from "../adapters/observability/otlp-audit-log-exporter.js";
import { loggableUrl, otlpSignalUrl } from "../adapters/observability/otlp-url.js";
import type { EventBus } from "../app/event-bus.js";
import type { Fleet } from "../app/fleet/fleet.js";
import type { GroupService } from "../app/groups/group-service.js";
import { ComplianceRecorder } from "../app/observability/compliance-recorder.js";
import { feedMetrics } from "../app/observability/metrics-feed.js";
import type { Clock } from "../app/ports/clock.js";
import type { Logger } from "../app/ports/logger.js";
import type { EnvSettings } from "../config/load.js";
import type { GatewayConfig } from "../config/schema.js";
import { REVISION, VERSION } from "./version.js";

/** This gateway's metrics registry, fed from the bus; `stop` unsubscribes it. */
export function openMetrics(deps: { bus: EventBus; fleet: Fleet; groups: GroupService; clock: Clock }) {
  const { fleet } = deps;
  const metrics = new PromGatewayMetrics(
    {
      servers: () =>
        fleet.list().map((server) => ({
          id: server.id,
          state: server.lifecycle.state,
          in_flight: server.inFlight,
        })),
      mode: (id) => (fleet.has(id) ? fleet.require(id).spec.mode : undefined),
      groups: () =>
        deps.groups.views().map((group) => ({
          id: group.group_id,
          state: group.state,
          circuit_open: group.circuit_open,
        })),
    },
    {
      build: { version: VERSION, revision: REVISION, node_version: process.version },
      configLoadedAt: deps.clock.now() / 1000,
    },
  );
  const stop = feedMetrics(deps.bus, metrics);
  return { metrics, stop };
}

/**
 * The compliance (SIEM) export when `MCP_COMPLIANCE_FORMAT` is set, started; null when it is not.
 * Rejects (refusing the boot) when `MCP_COMPLIANCE_OUTPUT` cannot be opened for appending; an
 * unknown format was already refused when the environment was read.
 */
export async function openComplianceExport(
  env: EnvSettings,
  deps: { bus: EventBus; clock: Clock; logger: Logger },
): Promise<ComplianceRecorder | null> {
  if (env.complianceFormat === null) return null;
  const exporter = await openComplianceExporter(env.complianceFormat, env.complianceOutput, {
    vendor: "Airlock",
    product: "MCP Gateway",
    version: VERSION,
    hostname: hostname(),
    pid: process.pid,
  });
  const recorder = new ComplianceRecorder({ ...deps, exporter });
  recorder.start();
  return recorder;
}

/**
 * The OTLP log export of audit records (`observability.audit`), started: only when `enabled` and
 * an `otlp_endpoint` is written (no default endpoint receives audit records); null otherwise. The
 * records are those of the audit trail (each tool invocation), posted to `<endpoint>/v1/logs`
 * unless the endpoint names its own path, with the resource of the tracing configuration.
 */
export function openAuditLogExport(
  config: GatewayConfig["observability"],
  instanceId: string,
  deps: { bus: EventBus; clock: Clock; logger: Logger },
): ComplianceRecorder | null {
  const endpoint = config.audit.otlp_endpoint;
  if (!config.audit.enabled || endpoint === undefined) return null;
  const url = otlpSignalUrl(endpoint, "logs");
  const exporter = new OtlpAuditLogExporter(url, {
    serviceName: config.tracing.service_name,
    serviceVersion: VERSION,
    instanceId,
  });
  const recorder = new ComplianceRecorder({ ...deps, exporter, label: "audit log export" });
  recorder.start();
  deps.logger.info({ url: loggableUrl(url) }, "audit records exported as OTLP logs");
  return recorder;
}
