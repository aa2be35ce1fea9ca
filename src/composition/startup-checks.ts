import type { Logger } from "../app/ports/logger.js";
import type { PolicyLocation } from "../config/schema/cross-field.js";
import { type GatewayConfig, listToolPolicies } from "../config/schema.js";
import type { OpenedApprovals } from "./open-approvals.js";

/** The event name of a configured subsystem that cannot be reached (spec 2 §2 `startup_checks`). */
export const UNREACHABLE_EVENT = "subsystem_configured_but_unreachable";

/** A check that refuses the boot (with `startup_checks.enforce: true`). */
export interface StartupRefusal {
  readonly subsystem: string;
  readonly reason: string;
}

/** Every non-empty `approval_list` of the configuration: its dotted path and its policy. */
export function approvalLists(config: GatewayConfig): { path: string; policy: PolicyLocation["policy"] }[] {
  return listToolPolicies(config.mcp_servers, config.tool_access.member)
    .filter(({ policy }) => policy.approval_list.length > 0)
    .map(({ path, policy }) => ({ path: [...path, "approval_list"].join("."), policy }));
}

/**
 * Spec 2 §2 `startup_checks`, for the approval gate:
 * - a tool on an `approval_list` while no gate service exists refuses the boot;
 * - with `approvals.delivery.required: true`, a channel a gated policy routes on (or the default
 *   channel, when UI resources need consent) that cannot deliver refuses the boot;
 * - any other configured channel that cannot deliver logs `subsystem_configured_but_unreachable`
 *   at ERROR; channel `noop` in use logs a warning (it notifies nobody by design).
 *
 * With `startup_checks.enforce: false` refusals are logged at ERROR instead. Returns the error that
 * refuses the boot, or null when it may go on.
 */
export function checkStartup(
  config: GatewayConfig,
  approvals: OpenedApprovals | null,
  logger: Logger,
): Error | null {
  const refusals: StartupRefusal[] = [];
  const gated = approvalLists(config);
  if (!approvals) {
    for (const { path } of gated) {
      refusals.push({
        subsystem: "approvals",
        reason: `${path} holds calls for approval, and no approval gate is configured`,
      });
    }
  } else {
    const used = new Set<string>();
    for (const { policy } of gated) used.add(policy.approval_channel ?? config.approvals.channel);
    // Every read of an allowed UI resource is held for consent on the default channel.
    if (Object.values(config.ui_resources.tenants).some((tenant) => tenant.allowlist.length > 0)) {
      used.add(config.approvals.channel);
    }
    for (const [channel, reason] of approvals.unreachable) {
      if (used.has(channel) && config.approvals.delivery.required) {
        refusals.push({
          subsystem: `approvals.${channel}`,
          reason: `${reason} (approvals.delivery.required is true)`,
        });
      } else {
        logger.error(
          { event: UNREACHABLE_EVENT, subsystem: `approvals.${channel}`, reason },
          UNREACHABLE_EVENT,
        );
      }
    }
    for (const channel of used) {
      if (channel === "noop") {
        logger.warn(
          { subsystem: "approvals.noop" },
          "approval channel noop notifies nobody: held calls expire",
        );
      } else if (
        channel !== "event_stream" &&
        !approvals.unreachable.has(channel) &&
        !(channel in config.approvals)
      ) {
        const reason = `channel ${channel} has no approvals.${channel} settings`;
        if (config.approvals.delivery.required) refusals.push({ subsystem: `approvals.${channel}`, reason });
        else
          logger.error(
            { event: UNREACHABLE_EVENT, subsystem: `approvals.${channel}`, reason },
            UNREACHABLE_EVENT,
          );
      }
    }
  }
  if (refusals.length === 0) return null;
  if (!config.startup_checks.enforce) {
    for (const refusal of refusals) {
      logger.error(
        {
          event: "startup_check_failed",
          subsystem: refusal.subsystem,
          reason: refusal.reason,
          enforce: false,
        },
        "startup check failed; starting anyway (startup_checks.enforce is false)",
      );
    }
    return null;
  }
  const lines = refusals.map((refusal) => `${refusal.subsystem}: ${refusal.reason}`);
  return new Error(`startup checks refused the boot:\n  ${lines.join("\n  ")}`);
}
