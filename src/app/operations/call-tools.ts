import { z } from "zod";
import { GatewayError, INTERNAL_ERROR_MESSAGE } from "../../domain/errors.js";
import type { JsonValue } from "../../domain/truncation/cut-json.js";
import { admit } from "../admit.js";
import type { RequestContext } from "../context.js";
import { defineOperation } from "../operation.js";
import type { ToolCallResult } from "../ports/upstream.js";
import { routeCall } from "../routing/route-call.js";
import type { AppServices } from "../services.js";
import { SignalFollowers } from "../signal-followers.js";
import { truncateOutcomes } from "../truncation/truncate-outcomes.js";
import { UNKNOWN_FIELD_RULE } from "../validation.js";

/** Decisions "gateway_call": per-call timeout clamp, batch size and result caps. */
export const CALL_TIMEOUT_MIN_S = 1;
export const CALL_TIMEOUT_MAX_S = 300;
const DEFAULT_TIMEOUT_S = 60;
export const MAX_CALLS_PER_BATCH = 100;
export const MAX_CALL_RESULT_BYTES = 10 * 1024 * 1024;
export const MAX_BATCH_RESULT_BYTES = 50 * 1024 * 1024;

export const clampTimeout = (seconds: number) =>
  Math.min(CALL_TIMEOUT_MAX_S, Math.max(CALL_TIMEOUT_MIN_S, seconds));

const clampInt = (min: number, max: number) => (n: number) => Math.min(max, Math.max(min, Math.trunc(n)));

/** One call of a batch: what `gateway_call` and `POST /api/tools/call` take for a call. */
export const callSpec = z.strictObject({
  mcp_server: z.string().min(1).describe("MCP server (or group) id"),
  tool: z.string().min(1).describe("Tool name on that server"),
  arguments: z.record(z.string(), z.unknown()).default({}).describe("Tool arguments (an object)"),
  timeout: z.number().optional().describe("Seconds for this call (clamped to 1-300)"),
});

export type CallSpec = z.output<typeof callSpec>;

/**
 * Out-of-range numbers are clamped rather than refused (decisions "gateway_call"); the calls are
 * checked one by one in `run` so that every problem is reported at once, by index and field.
 */
export const callToolsInput = z.strictObject({
  calls: z.array(z.unknown()).describe("1-100 calls, each {mcp_server, tool, arguments?, timeout?}"),
  max_concurrency: z.number().default(10).transform(clampInt(1, 50)).describe("Calls run at once (1-50)"),
  timeout: z.number().default(DEFAULT_TIMEOUT_S).describe("Seconds per call, clamped to 1-300"),
  fail_fast: z.boolean().default(false).describe("After the first failure, cancel the calls not yet started"),
  max_attempts: z
    .number()
    .default(1)
    .transform(clampInt(1, 5))
    .describe("Attempts for retryable failures (1-5)"),
});

/** The parameters as advertised to MCP clients: the complete shape, with its documented ranges. */
export const callToolsParams = z.strictObject({
  calls: z.array(callSpec).min(1).max(MAX_CALLS_PER_BATCH).describe("1-100 calls, run concurrently"),
  max_concurrency: z
    .number()
    .int()
    .min(1)
    .max(50)
    .default(10)
    .describe("Calls run at once (1-50, default 10)"),
  timeout: z
    .number()
    .min(CALL_TIMEOUT_MIN_S)
    .max(CALL_TIMEOUT_MAX_S)
    .default(DEFAULT_TIMEOUT_S)
    .describe("Seconds per call (1-300, default 60)"),
  fail_fast: z.boolean().default(false).describe("After the first failure, cancel the calls not yet started"),
  max_attempts: z.number().int().min(1).max(5).default(1).describe("Attempts for retryable failures (1-5)"),
});

export interface ValidationIssue {
  index: number;
  field: string;
  message: string;
}

export interface CallOutcome {
  index: number;
  call_id: string;
  success: boolean;
  /**
   * The upstream result; once truncated, its kept part: a structural prefix of it, or (without
   * `preserve_json_structure`) the first characters of its JSON text.
   */
  result: ToolCallResult | JsonValue | null;
  error: string | null;
  error_type: string | null;
  elapsed_ms: number;
  truncated: boolean;
  truncated_reason: string | null;
  original_size_bytes: number | null;
  continuation_id: string | null;
}

export const callTools = defineOperation({
  name: "call-tools",
  kind: "command",
  summary:
    "Call upstream tools: one call or a batch of up to 100, run concurrently with per-call timeouts, " +
    "optional fail-fast and retries of retryable failures.",
  permissions: ["tool:invoke"],
  // Spec 2 §4: "tool:invoke, checked per call in a batch". A caller granted `tool:invoke` for some
  // servers only (`tool:invoke:<id>`) is admitted, and each call is checked for its server.
  checkedPerResource: true,
  input: callToolsInput,
  /**
   * A batch refused before it ran (no `tool:invoke`, the caller's rate limit): each of its calls
   * that names a known server is recorded as a refused invocation (audit `denied`, compliance
   * `ToolInvocationDenied`), as refusals after admission are. Calls naming a group (no member was
   * chosen) or nothing known are not. At most the batch's 100.
   */
  recordRefusal(services, input, ctx, error) {
    for (const entry of input.calls.slice(0, MAX_CALLS_PER_BATCH))
      recordCallRefusal(services, ctx, entry, error);
  },
  async run(services, input, ctx) {
    const began = services.clock.monotonic();
    const batch_id = services.ids.uuid();
    const { calls, issues } = validateCalls(services, input.calls);
    if (issues.length > 0) {
      // The result's counts, with nothing run, besides what refused the batch.
      return {
        batch_id,
        success: false,
        total: input.calls.length,
        succeeded: 0,
        failed: 0,
        cancelled: 0,
        elapsed_ms: Math.round(services.clock.monotonic() - began),
        results: [],
        error: "Validation failed",
        validation_errors: issues,
      };
    }
    const outcomes: CallOutcome[] = new Array(calls.length);
    let failedOnce = false;
    let batchBytes = 0;
    let next = 0;

    const worker = async (ctx: RequestContext) => {
      while (next < calls.length) {
        const index = next++;
        const call = calls[index]!;
        const call_id = services.ids.uuid();
        if ((input.fail_fast && failedOnce) || ctx.signal?.aborted) {
          outcomes[index] = failure(index, call_id, 0, "Cancelled before execution", CANCELLED);
          continue;
        }
        const refused = ctx.perResource ? await invokeRefusal(services, ctx, call, call_id) : null;
        if (refused) {
          outcomes[index] = failure(index, call_id, 0, refused.message, refused.type);
          failedOnce = true;
          continue;
        }
        const outcome = await runCall(services, ctx, index, call_id, call, input);
        if (outcome.success && outcome.original_size_bytes !== null) {
          batchBytes += outcome.original_size_bytes;
          if (batchBytes > MAX_BATCH_RESULT_BYTES) {
            outcomes[index] = failure(
              index,
              call_id,
              outcome.elapsed_ms,
              `batch results exceed ${MAX_BATCH_RESULT_BYTES} bytes`,
              "ResponseTooLarge",
            );
            failedOnce = true;
            continue;
          }
        }
        if (!outcome.success) failedOnce = true;
        outcomes[index] = outcome;
      }
    };
    const workers = Math.min(input.max_concurrency, calls.length);
    // Each worker's calls listen to a signal of the worker's own, not all to the caller's.
    const followers = new SignalFollowers(ctx.signal);
    try {
      await Promise.all(Array.from({ length: workers }, () => worker(followers.follow(ctx))));
    } finally {
      followers.release();
    }

    const succeeded = outcomes.filter((o) => o.success).length;
    const cancelled = outcomes.filter((o) => o.error_type === CANCELLED).length;
    const results = services.continuations
      ? await truncateOutcomes(outcomes, {
          continuations: services.continuations,
          batchId: batch_id,
          owner: { principal_id: ctx.principal.id, tenant_id: ctx.principal.tenant_id },
          ids: services.ids,
          logger: services.logger,
        })
      : outcomes;
    return {
      batch_id,
      success: succeeded === outcomes.length,
      total: outcomes.length,
      succeeded,
      failed: outcomes.length - succeeded - cancelled,
      cancelled,
      elapsed_ms: Math.round(services.clock.monotonic() - began),
      results,
    };
  },
});

async function runCall(
  services: AppServices,
  ctx: RequestContext,
  index: number,
  call_id: string,
  call: CallSpec,
  batch: z.output<typeof callToolsInput>,
): Promise<CallOutcome> {
  const began = services.clock.monotonic();
  const timeoutMs = clampTimeout(call.timeout ?? batch.timeout) * 1000;
  const elapsed = () => Math.round(services.clock.monotonic() - began);
  for (let attempt = 1; ; attempt++) {
    try {
      const { result, sizeBytes: size } = await routeCall(
        services,
        ctx,
        call.mcp_server,
        call.tool,
        call.arguments,
        {
          callId: call_id,
          timeoutMs,
        },
      );
      if (size > MAX_CALL_RESULT_BYTES) {
        const reason = `result of ${size} bytes exceeds ${MAX_CALL_RESULT_BYTES} bytes`;
        return failure(index, call_id, elapsed(), reason, "ResponseTooLarge");
      }
      if (result.isError) {
        return { ...failure(index, call_id, elapsed(), errorText(result), "ToolError"), result };
      }
      return {
        index,
        call_id,
        success: true,
        result,
        error: null,
        error_type: null,
        elapsed_ms: elapsed(),
        truncated: false,
        truncated_reason: null,
        original_size_bytes: size,
        continuation_id: null,
      };
    } catch (error) {
      const known = error instanceof GatewayError ? error : null;
      if (known?.retryable && attempt < batch.max_attempts && !ctx.signal?.aborted) {
        await retryPause(attempt, ctx.signal);
        continue;
      }
      if (!known) services.logger.error({ err: String(error), call_id }, "tool call failed unexpectedly");
      return failure(
        index,
        call_id,
        elapsed(),
        known?.message ?? INTERNAL_ERROR_MESSAGE,
        known?.type ?? "InternalServerError",
      );
    }
  }
}

/**
 * Why a caller admitted for some servers only may not make this call (`tool:invoke:<server>`), or
 * null when it may: the one check of a call of a batch besides the batch's own admission. A
 * refusal is recorded as a refused invocation of a known server.
 */
export async function invokeRefusal(
  services: AppServices,
  ctx: RequestContext,
  call: CallSpec,
  callId: string,
): Promise<GatewayError | null> {
  const check = { name: callTools.name, permissions: [`tool:invoke:${call.mcp_server}`] as const };
  try {
    await admit(services, check, ctx, {
      route: ctx.route ?? "mcp:gateway_call",
      resourceId: call.mcp_server,
    });
    return null;
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    const server = services.fleet.get(call.mcp_server);
    if (server) {
      const caller = { id: ctx.principal.id, tenant_id: ctx.principal.tenant_id };
      services.invoker.recordRefusal(server, call.tool, { callId, timeoutMs: 0, caller }, error);
    }
    return error;
  }
}

/**
 * Records a call refused before it ran as a refused invocation (audit `denied`, compliance
 * `ToolInvocationDenied`) when it names a known server; a group (no member chosen) or an unknown
 * name is not recorded.
 */
export function recordCallRefusal(
  services: AppServices,
  ctx: RequestContext,
  entry: unknown,
  error: GatewayError,
): void {
  const parsed = callSpec.safeParse(entry);
  const server = parsed.success ? services.fleet.get(parsed.data.mcp_server) : undefined;
  if (!parsed.success || !server) return;
  const caller = { id: ctx.principal.id, tenant_id: ctx.principal.tenant_id };
  services.invoker.recordRefusal(
    server,
    parsed.data.tool,
    { callId: services.ids.uuid(), timeoutMs: 0, caller },
    error,
  );
}

/** Pause before attempt `attempt + 1`: 100 ms, doubling, at most 1 s (a busy budget may free). */
const RETRY_BASE_MS = 100;
const RETRY_MAX_MS = 1_000;

function retryPause(attempt: number, signal: AbortSignal | undefined): Promise<void> {
  const ms = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** (attempt - 1));
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

function failure(
  index: number,
  call_id: string,
  elapsed_ms: number,
  error: string,
  error_type: string,
): CallOutcome {
  return {
    index,
    call_id,
    success: false,
    result: null,
    error,
    error_type,
    elapsed_ms,
    truncated: false,
    truncated_reason: null,
    original_size_bytes: null,
    continuation_id: null,
  };
}

const CANCELLED = "CancellationError";

/** Every call checked before any runs: shape, known server, and tool when the server's tools are known. */
function validateCalls(
  services: AppServices,
  raw: unknown[],
): { calls: CallSpec[]; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  if (raw.length === 0)
    issues.push({ index: -1, field: "calls", message: "calls must contain at least one call" });
  if (raw.length > MAX_CALLS_PER_BATCH) {
    issues.push({
      index: -1,
      field: "calls",
      message: `Batch size ${raw.length} exceeds maximum ${MAX_CALLS_PER_BATCH}`,
    });
    return { calls: [], issues };
  }
  const calls: CallSpec[] = [];
  raw.forEach((entry, index) => {
    const parsed = callSpec.safeParse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      if (issue?.code === "unrecognized_keys") {
        // A field no call takes is named, as everywhere else (`calls[i].<key>`).
        const key = issue.keys[0] ?? "call";
        issues.push({ index, field: key, message: `${key} ${UNKNOWN_FIELD_RULE}` });
        return;
      }
      const field = issue?.path.join(".") || "call";
      issues.push({ index, field, message: callIssueMessage(field, entry) });
      return;
    }
    const call = parsed.data;
    if (services.groups.has(call.mcp_server)) {
      calls.push(call);
      return;
    }
    const server = services.fleet.get(call.mcp_server);
    if (!server) {
      issues.push({ index, field: "mcp_server", message: `McpServer '${call.mcp_server}' not found` });
    } else if (!server.mayHaveTool(call.tool)) {
      issues.push({
        index,
        field: "tool",
        message: `Tool '${call.tool}' not found in mcp_server '${call.mcp_server}'`,
      });
    }
    calls.push(call);
  });
  return { calls, issues };
}

function callIssueMessage(field: string, entry: unknown): string {
  if (entry === null || typeof entry !== "object" || Array.isArray(entry)) return "Call must be a dictionary";
  switch (field) {
    case "mcp_server":
      return "mcp_server is required and must be a string";
    case "tool":
      return "tool is required and must be a string";
    case "arguments":
      return "arguments must be a dictionary";
    case "timeout":
      return "timeout must be a number";
    default:
      return `${field} is invalid`;
  }
}

/** The text an upstream gave with `isError: true`. */
function errorText(result: ToolCallResult): string {
  const text = result.content
    .filter((block) => block.type === "text" && typeof block.text === "string")
    .map((block) => block.text as string)
    .join("\n");
  return text || "tool reported an error";
}
