import { AuditRecorder } from "../app/audit-recorder.js";
import type { EventBus } from "../app/event-bus.js";
import { recordEvents } from "../app/event-recorder.js";
import type { ComplianceRecorder } from "../app/observability/compliance-recorder.js";
import type { Clock } from "../app/ports/clock.js";
import type { Logger } from "../app/ports/logger.js";
import type { EnvSettings } from "../config/load.js";
import type { GatewayConfig } from "../config/schema.js";
import type { Closers } from "./closers.js";
import { openAuditLogExport, openComplianceExport } from "./observability.js";
import type { Storage } from "./open-storage.js";

/**
 * What the gateway records of its events, each started and registered in `closers`: every event
 * in the event store, the audit trail, the compliance (SIEM) export and the OTLP audit-log export.
 * Opened before the fleet, so they close after it: its last stop events are recorded too.
 * Rejects (refusing the boot) when the compliance output cannot be opened.
 */
export async function openRecords(
  config: GatewayConfig,
  env: EnvSettings,
  deps: { storage: Storage; bus: EventBus; clock: Clock; logger: Logger; instanceId: string },
  closers: Closers,
): Promise<{ compliance: ComplianceRecorder | null }> {
  const { storage, bus, clock, logger } = deps;
  closers.opened("event recording", recordEvents(bus, storage.eventStore, logger));
  const audit = new AuditRecorder({ bus, audit: storage.repositories.audit, logger });
  audit.start();
  closers.opened("audit trail", () => audit.stop());
  const compliance = await openComplianceExport(env, { bus, clock, logger });
  if (compliance) closers.opened("compliance export", () => compliance.stop());
  const auditLogs = openAuditLogExport(config.observability, deps.instanceId, { bus, clock, logger });
  if (auditLogs) closers.opened("audit log export", () => auditLogs.stop());
  return { compliance };
}
