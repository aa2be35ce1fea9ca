import {
  type ApprovalTrigger,
  approvalEvent,
  approvalStep,
  waitEnd,
} from "../../domain/approval/approval-machine.js";
import { redactArguments } from "../../domain/approval/redact.js";
import { GatewayError } from "../../domain/errors.js";
import type { ToolPolicy } from "../../domain/policy/tool-policy.js";
import type { EventBus } from "../event-bus.js";
import type { ApprovalDelivery, ApprovalNotice } from "../ports/approval-delivery.js";
import type { HoldReason } from "../ports/approval-holds.js";
import type { ApprovalRecord, ApprovalRepository } from "../ports/approval-repository.js";
import type { CallbackVerifier } from "../ports/callback-verifier.js";
import type { Clock } from "../ports/clock.js";
import type { Hasher } from "../ports/hasher.js";
import type { IdGenerator } from "../ports/id-generator.js";
import type { Logger } from "../ports/logger.js";
import type { GatedCall } from "../routing/call-gate.js";
import type { ApprovalService } from "./approval-service.js";
import { holdSettings } from "./hold-settings.js";

export interface ApprovalGateDeps {
  repository: ApprovalRepository;
  bus: EventBus;
  clock: Clock;
  ids: IdGenerator;
  hasher: Hasher;
  logger: Logger;
  /** The tool policies that govern a call (its group's, its member entry's, its server's own). */
  policiesFor(call: GatedCall): readonly (ToolPolicy | undefined)[];
  /** Delivery to channels that need an adapter; null when none is configured. */
  delivery: ApprovalDelivery | null;
  callbacks: CallbackVerifier | null;
}

export interface ApprovalGateSettings {
  /** `approvals.channel`. */
  defaultChannel: string;
  /** `approvals.delivery.required`: a request that cannot be delivered is denied at once. */
  deliveryRequired: boolean;
  /** Hold of a call whose policy names none (spec 2 §8: 300 s). */
  defaultTimeoutSeconds: number;
  /**
   * How often a waiting call reads its approval from the shared repository: the longest a call
   * waits to learn a decision made on another replica. A decision made on this replica wakes it
   * at once.
   */
  pollIntervalMs: number;
  /** How often pending approvals nobody waits for any more are looked for. */
  sweepIntervalMs: number;
  /**
   * How long after its deadline a pending approval counts as orphaned (its replica died while
   * holding it) and is expired by the sweep. A live holder expires its own at the deadline; the
   * grace keeps the sweep from racing it.
   */
  orphanGraceMs: number;
}

/** Channels that need no delivery adapter: the request event is the delivery, or nobody is told. */
const SELF_DELIVERED = new Set(["event_stream", "noop"]);

/** Longest wait for the queue to accept a request before it counts as undeliverable. */
const ENQUEUE_TIMEOUT_MS = 5_000;

/** Marks a denial made by the gateway itself (`decided_by` null) because delivery failed. */
const UNDELIVERABLE_REASON = "delivery_failed";

type RefusalReason =
  | "approval_denied"
  | "approval_expired"
  | "approval_cancelled"
  | "approval_undeliverable"
  | "approval_arguments_changed"
  | "approval_call_timeout"
  | "approval_unavailable";

/** A waiting call's wake-up: a timer, a decision seen on this replica, the caller going away. */
class Waiter {
  private wakeNow: (() => void) | undefined;
  private woken = false;

  wake(): void {
    this.woken = true;
    this.wakeNow?.();
  }

  sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    if (this.woken || signal?.aborted) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        this.wakeNow = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal?.addEventListener("abort", done, { once: true });
      this.wakeNow = done;
    });
  }
}

/**
 * The approval gate (spec 1 §3 "Approval", decisions "Approvals"): holds a call until an approver
 * approves exactly its arguments, and refuses it when denied, expired, cancelled or undeliverable.
 *
 * How a held call learns a decision made on another replica: the approval lives in the shared
 * repository, and the waiting call reads it every `pollIntervalMs` (and at once when this
 * replica's event bus carries a decision on it). At its deadline the call expires its own approval
 * with a compare-and-set, so a decision and the expiry never both win. Approvals whose holder died
 * are expired by a sweep on every replica, `orphanGraceMs` after their deadline.
 */
export class ApprovalGate implements ApprovalService {
  readonly callbacks: CallbackVerifier | null;
  private readonly waiters = new Map<string, Waiter>();
  /** Expiries of approvals whose held call stopped waiting at its own deadline. */
  private readonly expiries = new Set<ReturnType<typeof setTimeout>>();
  private readonly holding = new Set<Promise<unknown>>();
  private readonly unsubscribe: () => void;
  private sweepTimer: ReturnType<typeof setInterval> | undefined;
  private sweeping = false;
  private closed = false;

  constructor(
    private readonly deps: ApprovalGateDeps,
    private readonly settings: ApprovalGateSettings,
  ) {
    this.callbacks = deps.callbacks;
    this.unsubscribe = deps.bus.subscribe((event) => {
      if (
        event.type === "ToolApprovalGranted" ||
        event.type === "ToolApprovalDenied" ||
        event.type === "ToolApprovalExpired" ||
        event.type === "ToolApprovalCancelled"
      ) {
        this.waiters.get(event.approval_id)?.wake();
      }
    });
  }

  /** Starts the sweep of orphaned approvals. */
  start(): void {
    if (this.sweepTimer || this.closed) return;
    this.sweepTimer = setInterval(() => void this.sweep(), this.settings.sweepIntervalMs);
    this.sweepTimer.unref();
  }

  async hold(call: GatedCall, reason: HoldReason): Promise<void> {
    if (this.closed) throw refusal(call, "approval_unavailable", "the approval gate is shutting down");
    const running = this.holdCall(call, reason);
    this.holding.add(running);
    try {
      await running;
    } finally {
      this.holding.delete(running);
    }
  }

  /**
   * A notice given up after its last delivery attempt (reported by the delivery, on whichever
   * replica made that attempt).
   */
  async deliveryGivenUp(notice: ApprovalNotice, reason: string): Promise<void> {
    await this.undeliverable(notice.approval, notice.channel, reason);
  }

  /**
   * Stops the sweep and releases every waiting call: each one's approval is expired (the held call
   * ended) and the call refused. Idempotent.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    // Approvals left pending past their call's deadline are expired by the sweep of any replica.
    for (const timer of this.expiries) clearTimeout(timer);
    this.expiries.clear();
    for (const waiter of this.waiters.values()) waiter.wake();
    await Promise.allSettled([...this.holding]);
    this.unsubscribe();
  }

  /** Expires pending approvals whose holder is gone, `orphanGraceMs` after their deadline. */
  async sweep(): Promise<void> {
    if (this.sweeping || this.closed) return;
    this.sweeping = true;
    try {
      const due = this.deps.clock.now() - this.settings.orphanGraceMs;
      for (const approval of await this.deps.repository.list({ state: "pending" })) {
        if (this.waiters.has(approval.approval_id) || approval.expires_at * 1000 > due) continue;
        await this.settle(approval, "timeout", "no holder was waiting at the deadline");
      }
    } catch (error) {
      this.deps.logger.warn({ err: String(error) }, "approval sweep failed; it runs again later");
    } finally {
      this.sweeping = false;
    }
  }

  private async holdCall(call: GatedCall, reason: HoldReason): Promise<void> {
    const { clock, ids, repository, bus, logger } = this.deps;
    const { timeoutSeconds, channel } = holdSettings(
      reason.source === "approval_list" ? this.deps.policiesFor(call) : [],
      call.tool,
      { timeoutSeconds: this.settings.defaultTimeoutSeconds, channel: this.settings.defaultChannel },
    );
    const argumentsHash = this.hashOf(call);
    if (argumentsHash === null) {
      throw refusal(call, "approval_unavailable", "its arguments cannot be represented as JSON");
    }
    const requestedAt = clock.now() / 1000;
    const expiresAt = requestedAt + timeoutSeconds;
    const callDeadline = call.deadline === undefined ? null : call.deadline / 1000;
    const approval: ApprovalRecord = {
      approval_id: ids.uuid(),
      mcp_server_id: call.server.id,
      tool_name: call.tool,
      arguments: redactArguments(call.args),
      arguments_hash: argumentsHash,
      state: "pending",
      channel,
      requested_at: requestedAt,
      expires_at: expiresAt,
      call_deadline_at: callDeadline !== null && callDeadline < expiresAt ? callDeadline : null,
      requested_by: call.ctx.principal.id,
      tenant_id: call.ctx.principal.tenant_id,
      decided_by: null,
      decided_at: null,
      reason: null,
    };
    try {
      // Persisted before anyone hears of it: a request once made is never lost.
      await repository.create(approval);
    } catch (error) {
      logger.error(
        { mcp_server_id: approval.mcp_server_id, tool_name: approval.tool_name, err: String(error) },
        "approval could not be stored; the call is refused",
      );
      throw refusal(call, "approval_unavailable", "the approval could not be stored");
    }
    const waiter = new Waiter();
    this.waiters.set(approval.approval_id, waiter);
    try {
      bus.publish([
        {
          type: "ToolApprovalRequested",
          approval_id: approval.approval_id,
          mcp_server_id: approval.mcp_server_id,
          tool_name: approval.tool_name,
          arguments: approval.arguments as Record<string, unknown>,
          arguments_hash: approval.arguments_hash,
          channel,
          expires_at: approval.expires_at,
          requested_by: approval.requested_by,
          tenant_id: approval.tenant_id,
          source: reason.source,
        },
      ]);
      logger.info(
        {
          approval_id: approval.approval_id,
          mcp_server_id: approval.mcp_server_id,
          tool_name: approval.tool_name,
          channel,
          source: reason.source,
          expires_in_s: timeoutSeconds,
        },
        "call held for approval",
      );
      await this.deliver(approval, channel);
      const decided = await this.awaitDecision(approval, call, waiter);
      this.conclude(decided, call);
    } finally {
      this.waiters.delete(approval.approval_id);
    }
  }

  /** SHA-256 of the RFC 8785 canonical arguments, or null when they are not JSON. */
  private hashOf(call: GatedCall): string | null {
    try {
      return this.deps.hasher.sha256Hex(this.deps.hasher.canonicalJson(call.args));
    } catch {
      return null;
    }
  }

  private async deliver(approval: ApprovalRecord, channel: string): Promise<void> {
    if (SELF_DELIVERED.has(channel)) return;
    const delivery = this.deps.delivery;
    if (!delivery?.serves(channel)) {
      await this.undeliverable(approval, channel, `no delivery adapter serves channel ${channel}`);
      return;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        delivery.enqueue({ approval, channel }),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error("the delivery queue did not answer in time")),
            ENQUEUE_TIMEOUT_MS,
          );
        }),
      ]);
    } catch (error) {
      await this.undeliverable(approval, channel, `could not be queued: ${describe(error)}`);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * A request that reaches nobody on its channel. With `delivery.required` the gate fails closed:
   * the approval is denied by the gateway (`decided_by` null). Otherwise it stays pending, still
   * decidable through REST, and the failure is logged.
   */
  private async undeliverable(approval: ApprovalRecord, channel: string, why: string): Promise<void> {
    this.deps.logger.error(
      {
        approval_id: approval.approval_id,
        mcp_server_id: approval.mcp_server_id,
        tool_name: approval.tool_name,
        channel,
        reason: why,
        fails_closed: this.settings.deliveryRequired,
      },
      "approval request could not be delivered",
    );
    if (!this.settings.deliveryRequired) return;
    await this.settle(approval, "undeliverable", `${UNDELIVERABLE_REASON}: ${why}`).catch((error) => {
      this.deps.logger.error(
        { approval_id: approval.approval_id, err: String(error) },
        "undeliverable approval could not be denied; the held call fails closed at its deadline",
      );
    });
  }

  /**
   * Reads the approval until it leaves `pending`; at the deadline, or when the call stops waiting,
   * settles it. Returns the approval in its final state.
   */
  private async awaitDecision(
    approval: ApprovalRecord,
    call: GatedCall,
    waiter: Waiter,
  ): Promise<ApprovalRecord> {
    const { clock, repository, logger } = this.deps;
    const signal = call.ctx.signal;
    for (;;) {
      try {
        const current = await repository.get(approval.approval_id);
        if (current && current.state !== "pending") return current;
      } catch (error) {
        // The store is unreachable: keep waiting; the deadline still ends the hold (closed).
        logger.warn({ approval_id: approval.approval_id, err: String(error) }, "approval could not be read");
      }
      // In epoch seconds, as the state machine compares them.
      const now = clock.now() / 1000;
      let trigger: ApprovalTrigger | null = null;
      let why: string | null = null;
      if (now >= approval.expires_at) trigger = "timeout";
      else if (now >= waitEnd(approval)) throw this.stopWaiting(approval, call);
      else if (signal?.aborted) [trigger, why] = ["abandon", "the held call was cancelled before a decision"];
      else if (this.closed) [trigger, why] = ["abandon", "the gateway shut down before a decision"];
      if (trigger) {
        const settled = await this.settle(approval, trigger, why).catch(() => undefined);
        if (!settled) throw refusal(call, "approval_unavailable", "its approval could not be settled");
        if (trigger === "abandon" && settled.state === "expired") {
          throw refusal(call, "approval_cancelled", "the call stopped waiting before a decision");
        }
        return settled;
      }
      const untilDeadlineMs = Math.ceil((waitEnd(approval) - now) * 1000);
      await waiter.sleep(Math.min(this.settings.pollIntervalMs, untilDeadlineMs), signal);
    }
  }

  /**
   * The held call's own deadline came before the approval's: the call stops waiting and is refused
   * (`approval_call_timeout`, not retried), while the approval stays pending (an approve now cancels
   * it, a deny is recorded) until `expires_at`, when this replica expires it (the sweep of any
   * replica does, should this one be gone by then).
   */
  private stopWaiting(approval: ApprovalRecord, call: GatedCall): GatewayError {
    const untilExpiryMs = Math.max(0, Math.ceil(approval.expires_at * 1000 - this.deps.clock.now()));
    const timer = setTimeout(() => {
      this.expiries.delete(timer);
      void this.settle(approval, "timeout", null).catch((error) => {
        this.deps.logger.warn(
          { approval_id: approval.approval_id, err: String(error) },
          "approval not expired; the sweep expires it later",
        );
      });
    }, untilExpiryMs);
    timer.unref();
    this.expiries.add(timer);
    return refusal(
      call,
      "approval_call_timeout",
      "the call's timeout passed before a decision (the approval stays pending until it expires)",
      approval,
    );
  }

  /**
   * Applies a transition the gateway itself makes (expiry, abandonment, undeliverable) with a
   * compare-and-set from `pending`; publishes its event when it won. Returns the approval as it
   * is afterwards (decided by someone else when the compare-and-set lost), or undefined when the
   * trigger does not apply.
   */
  private async settle(
    approval: ApprovalRecord,
    trigger: ApprovalTrigger,
    reason: string | null,
  ): Promise<ApprovalRecord | undefined> {
    const at = this.deps.clock.now() / 1000;
    const step = approvalStep({ ...approval, state: "pending" }, trigger, at);
    if (!step.ok) return undefined;
    const written = await this.deps.repository.decide(approval.approval_id, "pending", step.to, {
      decided_by: null,
      decided_at: at,
      reason,
    });
    if (!written.decided) return written.current;
    this.deps.bus.publish([approvalEvent(written.approval, step.event, { by: null, at, reason })]);
    return written.approval;
  }

  /** Lets the call through only when approved for exactly the arguments it is about to send. */
  private conclude(approval: ApprovalRecord, call: GatedCall): void {
    switch (approval.state) {
      case "approved":
        // The arguments as they are now, right before the upstream call, against what was approved.
        if (this.hashOf(call) !== approval.arguments_hash) {
          throw refusal(
            call,
            "approval_arguments_changed",
            "its arguments differ from the approved ones",
            approval,
          );
        }
        return;
      case "denied":
        if (approval.decided_by === null) {
          throw refusal(
            call,
            "approval_undeliverable",
            "its approval request could not be delivered",
            approval,
          );
        }
        throw refusal(call, "approval_denied", "an approver denied it", approval);
      case "expired":
        throw refusal(call, "approval_expired", "no approver decided before the deadline", approval);
      case "cancelled":
        throw refusal(call, "approval_cancelled", "it was approved only after its deadline", approval);
      default:
        throw refusal(call, "approval_unavailable", "its approval is still pending", approval);
    }
  }
}

function refusal(
  call: GatedCall,
  reason: RefusalReason,
  why: string,
  approval?: ApprovalRecord,
): GatewayError {
  return new GatewayError(
    "ToolAccessDeniedError",
    `Tool '${call.tool}' was held for approval and refused: ${why}`,
    {
      mcp_server_id: call.target,
      tool_name: call.tool,
      reason,
      ...(approval && { approval_id: approval.approval_id }),
      ...(approval?.reason && reason === "approval_denied" && { decision_reason: approval.reason }),
    },
  );
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
