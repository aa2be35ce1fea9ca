import { GatewayError } from "../../domain/errors.js";
import type { DomainEventPayload } from "../../domain/events.js";
import { ConcurrencyBudget } from "../../domain/limits/concurrency-budget.js";
import {
  jsonTextNestsDeeper,
  jsonValueNestsDeeper,
  MAX_RELAYED_JSON_DEPTH,
} from "../../domain/limits/json-depth.js";
import { utf8Length } from "../../domain/limits/utf8-length.js";
import type { EventBus } from "../event-bus.js";
import { TenantBudgets, type TenantLimits } from "../limits/tenant-budgets.js";
import type { Clock } from "../ports/clock.js";
import type { AskClient, ProgressUpdate, ToolCallResult } from "../ports/upstream.js";
import type { Fleet } from "./fleet.js";
import type { ManagedServer } from "./managed-server.js";
import { upstreamFailure } from "./upstream-failure.js";

export interface CallContext {
  callId: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** The group the call was routed through: events name it, with the member as `route_backend`. */
  group?: string;
  /** Who called (principal id) and for which tenant, for the invocation events. */
  caller?: { id: string; tenant_id: string | null };
  /** Receives the upstream's progress notifications for this call (front door relay). */
  onProgress?: ((progress: ProgressUpdate) => void) | undefined;
  /** Request parameters relayed besides name and arguments (`task`, `_meta`). */
  extraParams?: Record<string, unknown> | undefined;
  /** W3C trace context of the call's span, sent to the upstream (`ports/tracer.ts`). */
  traceContext?: Readonly<Record<string, string>> | undefined;
  /** See `CallOptions.clientCapabilities`. */
  clientCapabilities?: Readonly<Record<string, unknown>> | undefined;
  /** See `CallOptions.askClient`. */
  askClient?: AskClient | undefined;
}

export interface InvokerLimits {
  /** `execution.max_concurrency`: calls at once in this process; 0 means no limit. */
  maxConcurrency: number;
  /** `execution.max_response_bytes` (after `MCP_MAX_RESPONSE_BYTES`); a server's own value wins. */
  maxResponseBytes: number;
  /** `execution.tenant_limits`; absent: no per-tenant budgets. */
  tenantLimits?: TenantLimits | undefined;
}

export interface InvokedResult {
  result: ToolCallResult;
  /** UTF-8 size of the result as JSON. */
  sizeBytes: number;
}

/**
 * The tool-call path: budgets, start on demand, the upstream call, the response-size limit, health
 * counters and the invocation events. Over-budget calls are refused at once (`TenantQuotaExceeded`).
 */
export class ToolInvoker {
  private readonly global: ConcurrencyBudget;
  private tenants: TenantBudgets | null;
  private limits: InvokerLimits;

  constructor(private readonly deps: { fleet: Fleet; bus: EventBus; clock: Clock; limits: InvokerLimits }) {
    this.limits = deps.limits;
    this.global = new ConcurrencyBudget(deps.limits.maxConcurrency);
    this.tenants = deps.limits.tenantLimits ? new TenantBudgets(deps.limits.tenantLimits) : null;
  }

  /**
   * Applies `execution` limits changed by a configuration reload to the next calls. Calls in
   * progress finish under the budgets that admitted them: a lower global limit refuses new calls
   * until enough of them end, and tenant budgets start afresh (counts and tokens). Throws before
   * changing anything when a tenant budget is invalid.
   */
  configure(limits: InvokerLimits): void {
    const tenants = limits.tenantLimits ? new TenantBudgets(limits.tenantLimits) : null;
    this.global.limit = limits.maxConcurrency;
    this.tenants = tenants;
    this.limits = limits;
  }

  get activeCalls(): number {
    return this.global.active;
  }

  /** Calls a tool. Throws a GatewayError for refusals and failures; a tool's own `isError` is a result. */
  async call(
    server: ManagedServer,
    tool: string,
    args: Record<string, unknown>,
    ctx: CallContext,
  ): Promise<InvokedResult> {
    const began = this.deps.clock.monotonic();
    server.inFlight++;
    try {
      // The tenant's rate token is spent only once every budget admitted the call.
      const tenant = this.tenants?.reserve(ctx.caller?.tenant_id ?? null, began) ?? null;
      try {
        if (!this.global.tryAcquire()) throw overBudget("global", this.global.limit);
        if (!server.budget.tryAcquire()) {
          this.global.release();
          throw overBudget(`mcp_server:${server.id}`, server.budget.limit);
        }
        tenant?.commit();
        try {
          return await this.callWithinBudget(server, tool, args, ctx);
        } finally {
          server.budget.release();
          this.global.release();
        }
      } finally {
        tenant?.release();
      }
    } catch (error) {
      // A call refused before it reached the upstream (budget, start, breaker, unknown tool) is an
      // invocation too: it is recorded, without counting against the server's health.
      if (error instanceof GatewayError && !this.recorded.has(error)) {
        this.deps.bus.publish([this.failedEvent(server, tool, ctx, began, error)]);
      }
      throw error;
    } finally {
      server.inFlight--;
    }
  }

  /** Records a call refused before it reached the invoker (policy, gate): a failed invocation. */
  recordRefusal(server: ManagedServer, tool: string, ctx: CallContext, error: GatewayError): void {
    this.deps.bus.publish([this.failedEvent(server, tool, ctx, this.deps.clock.monotonic(), error)]);
  }

  /** Failures already recorded by the upstream call itself. */
  private readonly recorded = new WeakSet<GatewayError>();

  private async callWithinBudget(
    server: ManagedServer,
    tool: string,
    args: Record<string, unknown>,
    ctx: CallContext,
  ): Promise<InvokedResult> {
    const { fleet, clock } = this.deps;
    if (!server.connection || server.lifecycle.state === "initializing") await fleet.start(server, false);
    const connection = server.connection;
    if (!connection)
      throw new GatewayError("McpServerNotReadyError", `MCP server '${server.id}' is not ready`);
    if (!server.mayHaveTool(tool)) {
      throw new GatewayError("ToolNotFoundError", `Tool not found: ${tool}`, { tool_name: tool });
    }
    const began = clock.monotonic();
    server.lastUsedMono = began;
    try {
      const result = await connection.callTool(tool, args, {
        timeoutMs: ctx.timeoutMs,
        signal: ctx.signal,
        onProgress: ctx.onProgress,
        extraParams: ctx.extraParams,
        traceContext: ctx.traceContext,
        clientCapabilities: ctx.clientCapabilities,
        askClient: ctx.askClient,
      });
      const sizeBytes = utf8Length(relayableJson(result));
      const limit = server.spec.max_response_bytes ?? this.limits.maxResponseBytes;
      if (sizeBytes > limit) {
        throw new GatewayError(
          "ResponseTooLarge",
          `response of ${sizeBytes} bytes exceeds the limit of ${limit} bytes`,
          {
            size_bytes: sizeBytes,
            limit_bytes: limit,
          },
        );
      }
      this.record(server, tool, ctx, began, null, sizeBytes, result.isError === true);
      return { result, sizeBytes };
    } catch (error) {
      const failure = upstreamFailure(error, "ToolInvocationError", ctx.timeoutMs);
      this.record(server, tool, ctx, began, failure, 0);
      this.recorded.add(failure);
      throw failure;
    } finally {
      server.lastUsedMono = clock.monotonic();
    }
  }

  private record(
    server: ManagedServer,
    tool: string,
    ctx: CallContext,
    began: number,
    failure: GatewayError | null,
    sizeBytes: number,
    toolError = false,
  ): void {
    const now = this.deps.clock.now();
    server.stats.total_invocations++;
    if (failure) {
      server.stats.total_failures++;
      server.stats.last_failure_at = now;
      this.deps.bus.publish([this.failedEvent(server, tool, ctx, began, failure)]);
      return;
    }
    server.stats.last_success_at = now;
    this.deps.bus.publish([
      {
        type: "ToolInvocationCompleted",
        ...this.eventBase(server, tool, ctx, began),
        result_size_bytes: sizeBytes,
        ...(toolError && { is_error: true }),
      },
    ]);
  }

  private failedEvent(
    server: ManagedServer,
    tool: string,
    ctx: CallContext,
    began: number,
    failure: GatewayError,
  ): DomainEventPayload {
    return {
      type: "ToolInvocationFailed",
      ...this.eventBase(server, tool, ctx, began),
      error_type: failure.type,
      error_message: failure.message,
      ...limitOf(failure),
    };
  }

  private eventBase(server: ManagedServer, tool: string, ctx: CallContext, began: number) {
    return {
      mcp_server_id: ctx.group ?? server.id,
      ...(ctx.group !== undefined && { route_backend: server.id }),
      ...(ctx.caller && { requested_by: ctx.caller.id, tenant_id: ctx.caller.tenant_id }),
      tool_name: tool,
      call_id: ctx.callId,
      duration_ms: Math.round(this.deps.clock.monotonic() - began),
    };
  }
}

function overBudget(budget: string, limit: number): GatewayError {
  return new GatewayError(
    "TenantQuotaExceeded",
    `concurrency budget '${budget}' is used up (${limit} calls at once)`,
    {
      budget,
      reason: "concurrency",
      limit,
    },
  );
}

/** The budget and reason of a rate-limit or quota refusal, for the event (metrics count them). */
function limitOf(failure: GatewayError): { limit?: { budget: string; reason: string } } {
  if (failure.type !== "TenantQuotaExceeded" && failure.type !== "RateLimitExceeded") return {};
  const budget = failure.details?.budget;
  if (typeof budget !== "string") return {};
  const reason = failure.details?.reason;
  return { limit: { budget, reason: typeof reason === "string" ? reason : "rate" } };
}

/**
 * The result's JSON text, refused (`ToolInvocationError`) when it nests deeper than the gateway
 * relays: serializing it again on the way out, or truncating it, would exhaust the stack.
 */
function relayableJson(result: ToolCallResult): string {
  let text: string;
  try {
    text = JSON.stringify(result);
  } catch (error) {
    // The serializer recurses: nesting of a few thousand levels exhausts the stack.
    if (error instanceof RangeError && jsonValueNestsDeeper(result, MAX_RELAYED_JSON_DEPTH)) throw tooDeep();
    throw error;
  }
  if (jsonTextNestsDeeper(text, MAX_RELAYED_JSON_DEPTH)) throw tooDeep();
  return text;
}

const tooDeep = () =>
  new GatewayError(
    "ToolInvocationError",
    `the result nests deeper than ${MAX_RELAYED_JSON_DEPTH} levels, more than the gateway relays`,
    { max_depth: MAX_RELAYED_JSON_DEPTH },
  );
