import { z } from "zod";
import { GatewayError } from "../../domain/errors.js";
import { isContinuationId } from "../../domain/truncation/continuation-id.js";
import { sliceWindow, utf8Slice } from "../../domain/truncation/utf8-slice.js";
import type { RequestContext } from "../context.js";
import { defineOperation } from "../operation.js";
import type { ContinuationOwner } from "../ports/continuation-store.js";

/** Decisions "gateway_call and continuations": default and largest slice of a continuation. */
const DEFAULT_LIMIT = 500_000;
const MAX_LIMIT = 2_000_000;

const NOT_FOUND = "continuation not found (expired, deleted, or never created)";
const UNAVAILABLE = "continuation store unavailable; try again";

const ownerOf = (ctx: RequestContext): ContinuationOwner => ({
  principal_id: ctx.principal.id,
  tenant_id: ctx.principal.tenant_id,
});

const decoder = new TextDecoder("utf-8");

/**
 * Reads a slice of the complete JSON text of a truncated `gateway_call` result. Offsets and limits
 * count UTF-8 bytes; a slice never splits a character, so its start may move back (at most 3 bytes)
 * and its end back or forward to a character boundary: `offset` says where `data` begins, and the
 * next slice starts at `offset` plus the UTF-8 length of `data`. `complete` is true once `data`
 * reaches the end of the result (then `has_more` is false). Only the caller the result was cut for
 * may read it; anyone else is told "not found".
 */
export const fetchContinuation = defineOperation({
  name: "fetch-continuation",
  kind: "query",
  summary: "Read a slice of a truncated result kept under a continuation id.",
  permissions: ["tool:invoke"],
  // A caller granted `tool:invoke` for some servers reads what its calls left; the owner check
  // below confines it to its own continuations.
  checkedPerResource: true,
  tenantAware: true,
  input: z.strictObject({
    continuation_id: z.string().min(1).describe("cont_<batch_id>_<call_index>_<8 hex>"),
    offset: z.number().int().min(0).default(0).describe("First byte of the slice"),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_LIMIT)
      .default(DEFAULT_LIMIT)
      .describe("Bytes in the slice (max 2000000)"),
  }),
  async run(services, input, ctx) {
    const continuations = services.continuations;
    if (!continuations || !isContinuationId(input.continuation_id)) return { found: false, error: NOT_FOUND };
    const window = sliceWindow(input.offset, input.limit);
    let stored: Awaited<ReturnType<typeof continuations.store.read>>;
    try {
      stored = await continuations.store.read(input.continuation_id, ownerOf(ctx), window.start, window.end);
    } catch (error) {
      services.logger.error(
        { err: String(error), driver: continuations.store.driver },
        "continuation store failed on a fetch",
      );
      throwIfAway(error);
      return { found: false, error: UNAVAILABLE };
    }
    if (!stored) return { found: false, error: NOT_FOUND };
    const total = stored.total_bytes;
    const { start, end } = utf8Slice(stored.bytes, window.start, input.offset, input.limit, total);
    return {
      found: true,
      data:
        end > start ? decoder.decode(stored.bytes.subarray(start - window.start, end - window.start)) : "",
      total_size_bytes: total,
      offset: start,
      has_more: end < total,
      complete: end >= total,
    };
  },
});

/** Drops a continuation before it expires; only the caller it was cut for may drop it. */
export const deleteContinuation = defineOperation({
  name: "delete-continuation",
  kind: "command",
  summary: "Drop a continuation before it expires.",
  permissions: ["tool:invoke"],
  // A caller granted `tool:invoke` for some servers reads what its calls left; the owner check
  // below confines it to its own continuations.
  checkedPerResource: true,
  tenantAware: true,
  input: z.strictObject({ continuation_id: z.string().min(1).describe("The continuation to drop") }),
  async run(services, input, ctx) {
    const { continuation_id } = input;
    const continuations = services.continuations;
    if (!continuations || !isContinuationId(continuation_id)) {
      return { deleted: false, continuation_id, error: NOT_FOUND };
    }
    try {
      if (await continuations.store.delete(continuation_id, ownerOf(ctx))) {
        return { deleted: true, continuation_id };
      }
    } catch (error) {
      services.logger.error(
        { err: String(error), driver: continuations.store.driver },
        "continuation store failed on a delete",
      );
      throwIfAway(error);
      return { deleted: false, continuation_id, error: UNAVAILABLE };
    }
    return { deleted: false, continuation_id, error: NOT_FOUND };
  },
});

/** A store that is away (Redis unreachable) is a retryable StoreUnavailableError, with its retry hint. */
function throwIfAway(error: unknown): void {
  if (error instanceof GatewayError && error.type === "StoreUnavailableError") throw error;
}
