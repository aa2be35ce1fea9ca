import { z } from "zod";
import { instanceCoordinates } from "../../coordination/instance-coordinates.js";
import { MANAGEMENT_LEASE } from "../../coordination/leadership.js";
import { defineOperation } from "../../operation.js";
import type { AppServices } from "../../services.js";
import { SCOPE_NOTE } from "../gateway-status.js";
import {
  ALERT_LEVELS,
  type Alert,
  complianceAlert,
  discoveryAlerts,
  eventStoreAlert,
  groupAlerts,
  reloadAlert,
  serverAlerts,
} from "./alert-rules.js";
import { choiceFilter } from "./query-fields.js";

/**
 * `GET /observability/alerts` (an earlier revision's route): the alerts in force now, derived from
 * the state this replica holds at the moment of asking (nothing is stored; an alert ends when its
 * state does). `level` keeps one level; another value is refused naming `level`. The rules are in
 * `alert-rules.ts`; see docs/rest-api.md for the table. Replica-local like `gateway_status`, except
 * `no_lease_holder`, read from the shared lease.
 */
export const activeAlerts = defineOperation({
  name: "active-alerts",
  kind: "query",
  summary: "Alerts in force now (dead servers, open circuits, failed reloads, ...), most severe first.",
  permissions: ["metrics:read"],
  input: z.strictObject({ level: choiceFilter(ALERT_LEVELS) }),
  async run(services, input) {
    const all = [
      ...serverAlerts(services.fleet.list()),
      ...groupAlerts(services.groups.views()),
      ...eventStoreAlert(services.eventStore.commitFailure),
      ...reloadAlert(services.reloader?.lastFailure() ?? null),
      ...(await leaseAlerts(services)),
      ...complianceAlert(services.complianceExport?.status()),
      // Discovery's state lives on the replica that manages the fleet; elsewhere it is empty.
      ...(services.discovery && services.instance.manages_fleet
        ? discoveryAlerts({
            sources: services.discovery.sources(),
            pending: services.discovery.pending(),
            quarantined: services.discovery.quarantined(),
          })
        : []),
    ].sort(bySeverity);
    const by_level = { critical: 0, warning: 0, info: 0 };
    for (const alert of all) by_level[alert.level] += 1;
    const alerts = input.level === undefined ? all : all.filter((alert) => alert.level === input.level);
    return {
      alerts,
      count: alerts.length,
      by_level,
      replica: instanceCoordinates(services.instance),
      scope: "replica" as const,
      scope_note: SCOPE_NOTE,
    };
  },
});

/** Most severe first, then by type and subject, so the same state always lists alike. */
function bySeverity(a: Alert, b: Alert): number {
  return (
    ALERT_LEVELS.indexOf(a.level) - ALERT_LEVELS.indexOf(b.level) ||
    a.type.localeCompare(b.type) ||
    (a.subject_id ?? "").localeCompare(b.subject_id ?? "")
  );
}

/**
 * With coordination, a replica that does not hold the management lease reads it: nobody holding it
 * (absent, expired or released) means nobody manages the fleet. The holder itself raises nothing.
 */
async function leaseAlerts({ coordination, repositories }: AppServices): Promise<Alert[]> {
  if (!coordination || coordination.isLeader) return [];
  const subject = { subject_type: "lease", subject_id: MANAGEMENT_LEASE, since: null } as const;
  try {
    const lease = await repositories.lease.read(MANAGEMENT_LEASE);
    if (lease && lease.expires_in > 0) return [];
    return [
      {
        level: "warning",
        type: "no_lease_holder",
        ...subject,
        message:
          "No replica holds the management lease: local servers, discovery and idle stops wait for one",
        details: { last_holder: lease?.holder ?? null },
      },
    ];
  } catch {
    // The store is away: say so without its error (a connection string may be in it).
    return [
      {
        level: "warning",
        type: "lease_unknown",
        ...subject,
        message: "The management lease could not be read from the shared store",
        details: {},
      },
    ];
  }
}
