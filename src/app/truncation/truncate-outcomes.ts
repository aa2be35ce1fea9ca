import { utf8Length } from "../../domain/limits/utf8-length.js";
import { continuationId } from "../../domain/truncation/continuation-id.js";
import type { JsonValue } from "../../domain/truncation/cut-json.js";
import { allocateShares } from "../../domain/truncation/shares.js";
import { BATCH_BUDGET_EXCEEDED, cutResult } from "../../domain/truncation/truncate-result.js";
import type { ContinuationOwner } from "../ports/continuation-store.js";
import type { IdGenerator } from "../ports/id-generator.js";
import type { Logger } from "../ports/logger.js";
import type { Continuations } from "../services.js";

/** The fields of a per-call result that truncation reads and fills. */
export interface TruncatableOutcome {
  index: number;
  result: unknown;
  truncated: boolean;
  truncated_reason: string | null;
  original_size_bytes: number | null;
  continuation_id: string | null;
}

export interface TruncationContext {
  continuations: Continuations;
  batchId: string;
  owner: ContinuationOwner;
  ids: IdGenerator;
  logger: Logger;
}

/**
 * Cuts the results of one batch to their shares of `max_batch_size_bytes` (decisions "gateway_call
 * and continuations"; every result that carries a payload takes part, a tool's own error result
 * included) and keeps the complete text of each cut result under a continuation id.
 *
 * Guarantees: results within their share come back unchanged; a cut result has `truncated: true`,
 * `truncated_reason`, its original size, and a `continuation_id` only when the store accepted it
 * (a store that fails or declines leaves `continuation_id` null: no id is promised that cannot be
 * fetched). Never rejects.
 */
export async function truncateOutcomes<T extends TruncatableOutcome>(
  outcomes: readonly T[],
  context: TruncationContext,
): Promise<T[]> {
  const { settings } = context.continuations;
  const candidates = outcomes.filter((outcome) => outcome.result !== null && outcome.result !== undefined);
  const sizes = candidates.map(
    (outcome) => outcome.original_size_bytes ?? utf8Length(JSON.stringify(outcome.result)),
  );
  const shares = allocateShares(sizes, settings);
  const cut = new Map<number, Promise<T>>();
  candidates.forEach((outcome, position) => {
    const size = sizes[position]!;
    const share = shares[position]!;
    if (size > share) cut.set(outcome.index, cutOne(outcome, size, share, context));
  });
  if (cut.size === 0) return [...outcomes];
  return Promise.all(outcomes.map((outcome) => cut.get(outcome.index) ?? outcome));
}

async function cutOne<T extends TruncatableOutcome>(
  outcome: T,
  size: number,
  share: number,
  context: TruncationContext,
): Promise<T> {
  const { store, settings } = context.continuations;
  const { kept, text } = cutResult(outcome.result as JsonValue, share, settings);
  const id = continuationId(context.batchId, outcome.index, context.ids.hex(4));
  let stored = false;
  try {
    stored = await store.put(id, context.owner, text);
    if (!stored) {
      context.logger.warn(
        { batch_id: context.batchId, index: outcome.index, size_bytes: size, driver: store.driver },
        "continuation store declined a truncated result; no continuation id is returned",
      );
    }
  } catch (error) {
    context.logger.error(
      { err: String(error), batch_id: context.batchId, index: outcome.index, driver: store.driver },
      "continuation store failed; the truncated result has no continuation id",
    );
  }
  return {
    ...outcome,
    result: kept,
    truncated: true,
    truncated_reason: BATCH_BUDGET_EXCEEDED,
    original_size_bytes: size,
    continuation_id: stored ? id : null,
  };
}
