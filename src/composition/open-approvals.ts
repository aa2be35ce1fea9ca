import { HmacCallbackVerifier } from "../adapters/notify/hmac-signature.js";
import type { BullmqApprovalDelivery } from "../adapters/queue/bullmq-approval-delivery.js";
import { ApprovalGate } from "../app/approvals/approval-gate.js";
import type { ApprovalService } from "../app/approvals/approval-service.js";
import { UiResourceGate } from "../app/approvals/ui-resource-gate.js";
import type { EventBus } from "../app/event-bus.js";
import type { Clock } from "../app/ports/clock.js";
import type { Hasher } from "../app/ports/hasher.js";
import type { IdGenerator } from "../app/ports/id-generator.js";
import type { Logger } from "../app/ports/logger.js";
import type { StoreRepositories } from "../app/ports/store-repositories.js";
import { memberPolicies } from "../app/routing/route-call.js";
import type { AppServices } from "../app/services.js";
import { redisUrlProblem } from "../config/schema/primitives.js";
import { DEFAULT_APPROVAL_TIMEOUT_SECONDS } from "../config/schema/tool-policy.js";
import type { GatewayConfig } from "../config/schema.js";
import { planChannels } from "./approval-channels.js";

/**
 * A waiting call reads its approval this often: the longest it takes to learn a decision made on
 * another replica (one made on this replica wakes it at once). Half a second keeps a human's
 * decision feeling immediate at two small reads per second per held call.
 */
const POLL_INTERVAL_MS = 500;
/** Pending approvals whose holder is gone are looked for this often... */
const SWEEP_INTERVAL_MS = 5_000;
/** ...and expired this long after their deadline (a live holder expires its own at the deadline). */
const ORPHAN_GRACE_MS = 10_000;
/** `approvals.delivery.max_attempts` and `backoff_s` when unset: 2, 4, 8, 16 s between attempts. */
const DEFAULT_MAX_ATTEMPTS = 5;
const DEFAULT_BACKOFF_S = 2;

export interface ApprovalsDeps {
  /** The environment secrets named by `signing_secret_env` are read from. */
  environment: Readonly<Record<string, string | undefined>>;
  repositories: StoreRepositories;
  bus: EventBus;
  clock: Clock;
  ids: IdGenerator;
  hasher: Hasher;
  logger: Logger;
  /** The application services, read at each hold (they are built after the gate). */
  services: () => AppServices;
}

export interface OpenedApprovals {
  readonly service: ApprovalService;
  /** Channels that cannot deliver now, and why; read by the startup checks. */
  readonly unreachable: ReadonlyMap<string, string>;
  /** Releases held calls, then stops the delivery worker and its Redis connections. */
  close(): Promise<void>;
}

/**
 * The approval gate of `approvals` (spec 2 §2), or null with `approvals.enabled: false`. Channels
 * with an adapter (webhook, slack) are delivered through BullMQ in `approvals.delivery.redis_url`;
 * an unreachable Redis or unusable channel settings do not stop this function: they are reported in
 * `unreachable`, and the startup checks decide whether the boot goes on.
 */
export async function openApprovals(
  config: GatewayConfig,
  deps: ApprovalsDeps,
): Promise<OpenedApprovals | null> {
  const { approvals } = config;
  if (!approvals.enabled) return null;
  const plan = planChannels(approvals, deps.environment);
  const unreachable = new Map(plan.problems);
  let gate: ApprovalGate | undefined;
  let delivery: BullmqApprovalDelivery | null = null;
  if (plan.senders.length > 0) {
    const url = approvals.delivery.redis_url;
    const problem = url === undefined ? "is not set" : redisUrlProblem(url);
    const urlProblem = problem === null ? null : `approvals.delivery.redis_url ${problem}`;
    if (urlProblem !== null || url === undefined) {
      for (const sender of plan.senders) {
        unreachable.set(
          sender.channel,
          `${urlProblem}: channel ${sender.channel} is delivered through Redis`,
        );
      }
    } else {
      // BullMQ and ioredis load only when a channel is delivered through Redis.
      const { BullmqApprovalDelivery } = await import("../adapters/queue/bullmq-approval-delivery.js");
      delivery = BullmqApprovalDelivery.open({
        url,
        senders: plan.senders,
        attempts: approvals.delivery.max_attempts ?? DEFAULT_MAX_ATTEMPTS,
        backoffMs: (approvals.delivery.backoff_s ?? DEFAULT_BACKOFF_S) * 1000,
        logger: deps.logger,
        onGivenUp: (notice, reason) => gate?.deliveryGivenUp(notice, reason),
      });
      const probe = await delivery.probe();
      if (!probe.ok) {
        for (const sender of plan.senders) {
          unreachable.set(sender.channel, `Redis at ${maskRedisUrl(url)} did not answer: ${probe.reason}`);
        }
      }
    }
  }
  const frontDoor = config.tool_access.mode === "front_door";
  gate = new ApprovalGate(
    {
      repository: deps.repositories.approvals,
      bus: deps.bus,
      clock: deps.clock,
      ids: deps.ids,
      hasher: deps.hasher,
      logger: deps.logger,
      // The front door governs a member by every group it belongs to; gateway_call by the one named.
      policiesFor: (call) =>
        memberPolicies(deps.services(), call.server.id, call.group, frontDoor, call.ctx.principal.tenant_id),
      delivery,
      callbacks: plan.secrets.size > 0 ? new HmacCallbackVerifier(plan.secrets) : null,
    },
    {
      defaultChannel: approvals.channel,
      deliveryRequired: approvals.delivery.required,
      defaultTimeoutSeconds: DEFAULT_APPROVAL_TIMEOUT_SECONDS,
      pollIntervalMs: POLL_INTERVAL_MS,
      sweepIntervalMs: SWEEP_INTERVAL_MS,
      orphanGraceMs: ORPHAN_GRACE_MS,
    },
  );
  gate.start();
  const opened = gate;
  let closing: Promise<void> | null = null;
  return {
    service: opened,
    unreachable,
    close() {
      closing ??= (async () => {
        await opened.close();
        await delivery?.close();
      })();
      return closing;
    },
  };
}

/** The URL fit for a message: its password masked. */
function maskRedisUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password !== "") parsed.password = "***";
  return parsed.toString();
}

/**
 * The `ui_resources` gate (spec 2 §2) over the services' approval gate: the front door's relay asks
 * it to filter resource listings and to decide each `resources/read` of a `ui://` resource.
 */
export function createUiResourceGate(config: GatewayConfig, services: AppServices): UiResourceGate {
  return new UiResourceGate({
    tenants: config.ui_resources.tenants,
    holds: services.approvals ?? null,
    fleet: services.fleet,
    newCallId: () => services.ids.uuid(),
  });
}
