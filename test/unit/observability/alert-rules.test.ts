import { describe, expect, it } from "vitest";
import type { ManagedServer } from "../../../src/app/fleet/managed-server.js";
import {
  complianceAlert,
  discoveryAlerts,
  eventStoreAlert,
  groupAlerts,
  reloadAlert,
  serverAlerts,
} from "../../../src/app/operations/observability/alert-rules.js";
import type { GroupView } from "../../../src/domain/group/group-model.js";
import { INITIAL_LIFECYCLE, type Lifecycle } from "../../../src/domain/server/lifecycle.js";

const server = (id: string, lifecycle: Partial<Lifecycle>) =>
  ({ id, lifecycle: { ...INITIAL_LIFECYCLE, ...lifecycle } }) as unknown as ManagedServer;

const group = (id: string, view: Partial<GroupView>): GroupView => ({
  group_id: id,
  description: null,
  state: "healthy",
  strategy: "round_robin",
  min_healthy: 1,
  healthy_count: 1,
  members_in_rotation_count: 1,
  total_members: 1,
  is_available: true,
  circuit_open: false,
  members: [],
  ...view,
});

const kinds = (alerts: { level: string; type: string; subject_id: string | null }[]) =>
  alerts.map((a) => `${a.level}:${a.type}:${a.subject_id}`);

describe("alert rules", () => {
  it("raises critical for a dead server, warning for a degraded or failing one, info for a blocked one, nothing otherwise", () => {
    const dead = {
      reason: "crashed" as const,
      since: 1_767_225_600,
      retry_allowed_at: null,
      revived_by: "start" as const,
    };
    expect(
      kinds(
        serverAlerts([
          server("cold", {}),
          server("fine", { state: "ready" }),
          server("dead", { state: "dead", dead }),
          server("slow", { state: "degraded", consecutive_failures: 3 }),
          server("flaky", { state: "ready", consecutive_failures: 1 }),
          server("stopped", { blocked: true }),
        ]),
      ),
    ).toEqual([
      "critical:server_dead:dead",
      "warning:server_degraded:slow",
      "warning:server_health_failing:flaky",
      "info:server_blocked:stopped",
    ]);
    const [alert] = serverAlerts([server("dead", { state: "dead", dead })]);
    expect(alert?.since).toBe("2026-01-01T00:00:00.000Z");
    expect(alert?.message).toContain("only a deliberate start revives it");
  });

  it("raises critical for an open circuit or a group that cannot serve, warning below min_healthy or without members", () => {
    expect(
      kinds(
        groupAlerts([
          group("ok", {}),
          group("cold", { state: "inactive", healthy_count: 0, is_available: true }),
          group("open", { state: "degraded", circuit_open: true }),
          group("down", { state: "inactive", healthy_count: 0, is_available: false }),
          group("thin", { state: "partial", min_healthy: 2 }),
          group("empty", {
            total_members: 0,
            healthy_count: 0,
            members_in_rotation_count: 0,
            is_available: false,
          }),
        ]),
      ),
    ).toEqual([
      "critical:group_circuit_open:open",
      "critical:group_unavailable:down",
      "warning:group_below_min_healthy:thin",
      "warning:group_no_members:empty",
    ]);
  });

  it("warns of an enabled source failing, informs of quarantined and pending servers, without error texts", () => {
    const source = (id: string, is_healthy: boolean, is_enabled: boolean) => ({
      id,
      source_type: "docker",
      mode: "additive",
      is_healthy,
      is_enabled,
      last_discovery: null,
      mcp_servers_count: 0,
      error_message: "connect ENOENT /var/run/docker.sock",
    });
    const alerts = discoveryAlerts({
      sources: [source("docker", false, true), source("off", false, false), source("ok", true, true)],
      pending: [
        {
          name: "new-one",
          source_type: "docker",
          mode: "additive",
          connection_info: {},
          fingerprint: "f",
          ttl_seconds: 60,
        },
      ],
      quarantined: {
        suspect: {
          source_type: "docker",
          reason: "validation_failed: tools/list timed out at 10.0.0.5",
          quarantined_at: "2026-01-01T00:00:00.000Z",
          connection_info: {},
          fingerprint: "f",
        },
      },
    });
    expect(kinds(alerts)).toEqual([
      "warning:discovery_source_failing:docker",
      "info:discovered_server_quarantined:suspect",
      "info:discovered_server_pending:new-one",
    ]);
    expect(alerts[1]).toMatchObject({
      since: "2026-01-01T00:00:00.000Z",
      details: { reason: "validation_failed" },
    });
    expect(JSON.stringify(alerts)).not.toMatch(/ENOENT|10\.0\.0\.5/);
  });

  it("raises the replica's own conditions only while they hold", () => {
    expect(reloadAlert(null)).toEqual([]);
    expect(kinds(reloadAlert({ at: 1_767_225_600 }))).toEqual(["warning:config_reload_failed:null"]);
    expect(eventStoreAlert(null)).toEqual([]);
    expect(kinds(eventStoreAlert({ retryInMs: 200 }))).toEqual(["critical:event_store_failing:null"]);
    const status = {
      status: "ok" as const,
      format: "cef",
      destination: "file" as const,
      records_written: 3,
      write_failures: 0,
      records_dropped: 0,
      last_failure_at: null,
      last_error: null,
    };
    expect(complianceAlert(undefined)).toEqual([]);
    expect(complianceAlert(status)).toEqual([]);
    expect(
      kinds(
        complianceAlert({
          ...status,
          status: "degraded",
          last_failure_at: 1_767_225_600,
          last_error: "EACCES",
        }),
      ),
    ).toEqual(["warning:compliance_export_failing:null"]);
  });
});
