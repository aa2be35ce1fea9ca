import { createOpaPolicyEngine } from "../adapters/auth/opa-policy-engine.js";
import { AccessEvents } from "../app/auth/access-events.js";
import { Authorizer } from "../app/auth/authorizer.js";
import { EgressPolicies } from "../app/egress/egress-policies.js";
import { EgressPolicyGate } from "../app/egress/egress-policy-gate.js";
import type { EventBus } from "../app/event-bus.js";
import type { Fleet } from "../app/fleet/fleet.js";
import type { Governance } from "../app/governance/governance.js";
import type { GroupService } from "../app/groups/group-service.js";
import type { HeaderExposure } from "../app/headers/header-exposure.js";
import type { ApprovalHolds } from "../app/ports/approval-holds.js";
import type { Clock } from "../app/ports/clock.js";
import type { Hasher } from "../app/ports/hasher.js";
import type { Logger } from "../app/ports/logger.js";
import type { StoreRepositories } from "../app/ports/store-repositories.js";
import type { CallGate } from "../app/routing/call-gate.js";
import type { GatewayConfig } from "../config/schema.js";
import { createCallGates } from "./call-gates.js";
import type { Closers } from "./closers.js";
import { createDigestPins, type PinsWiring } from "./digest-pins.js";
import { openGovernance } from "./governance.js";
import { createHeaderExposure } from "./header-exposure.js";

/** Who may do what, and what every upstream call is checked against before it is sent. */
export interface OpenedPolicies {
  readonly pinning: PinsWiring;
  readonly headerExposure: HeaderExposure;
  /** Present with authentication on (spec 2 §6). */
  readonly accessEvents: AccessEvents | undefined;
  readonly authorizer: Authorizer;
  readonly governance: Governance;
  readonly egressPolicies: EgressPolicies;
  /** In the order they run (`call-gates.ts`). */
  readonly callGates: CallGate[];
}

/**
 * Digest pins (watching every listing from now on, before anything starts), `header_exposure`,
 * roles and the policy engine, governance and the L7 egress policies, with their stored records
 * read; the pins' watch is registered in `closers`. Rejects when a stored record cannot be read.
 */
export async function openPolicies(
  config: GatewayConfig,
  deps: {
    repositories: StoreRepositories;
    fleet: Fleet;
    groups: GroupService;
    bus: EventBus;
    clock: Clock;
    hasher: Hasher;
    logger: Logger;
    /** Read at each hold: the approval gate is opened after the policies. */
    approvals: () => ApprovalHolds | undefined;
  },
  closers: Closers,
): Promise<OpenedPolicies> {
  const { repositories, fleet, groups, bus, clock, hasher, logger } = deps;
  const pinning = createDigestPins(config, { fleet, groups, bus, logger });
  closers.opened("digest pin watch", pinning.watch());
  const headerExposure = createHeaderExposure(config, { groups, logger });
  // Authentication and authorization outcomes as events, when authentication is on (spec 2 §6).
  const accessEvents = config.auth.enabled ? new AccessEvents({ bus, clock }) : undefined;
  const authorizer = new Authorizer({
    repositories,
    staticAssignments: config.auth.role_assignments,
    policyEngine: config.auth.enabled ? createOpaPolicyEngine(config.auth.opa, logger) : null,
    clock,
    logger,
  });
  const governance = await openGovernance(config, { repositories, clock, logger });
  const egressPolicies = new EgressPolicies({ repository: repositories.l7Policies, hasher, clock, logger });
  await egressPolicies.load();
  const egressPolicy = new EgressPolicyGate({
    policies: egressPolicies,
    fleet,
    bus,
    approvals: deps.approvals,
  });
  const callGates = createCallGates({
    governance,
    egressPolicy,
    digestPins: pinning.gate,
    headerExposure: headerExposure.gate(),
  });
  return { pinning, headerExposure, accessEvents, authorizer, governance, egressPolicies, callGates };
}
