/** How a batch's results share the truncation budget (`truncation.*` of spec 2 §2). */
export interface ShareBudget {
  /** `max_batch_size_bytes`: what all the results of one batch may occupy together. */
  maxBatchBytes: number;
  /** `min_per_response_bytes`: no result is cut below this, even when the batch goes over. */
  minPerResponseBytes: number;
}

/**
 * Divides the batch budget over results of the given serialized sizes, max-min fair: results
 * smaller than an equal part keep all they have, and what they leave is divided equally among the
 * larger ones. A result whose size is at most its share is not cut.
 *
 * Guarantees: every share is at least `minPerResponseBytes`; when the sizes add up to at most
 * `maxBatchBytes` no result is cut; when `count × minPerResponseBytes <= maxBatchBytes` the kept
 * sizes (`min(size, share)`) add up to at most `maxBatchBytes`. When the minimum itself does not
 * fit `count` times, the minimum wins and the batch may exceed the budget (by at most
 * `count × minPerResponseBytes`).
 */
export function allocateShares(sizes: readonly number[], budget: ShareBudget): number[] {
  const floor = budget.minPerResponseBytes;
  const shares = new Array<number>(sizes.length);
  const ascending = sizes.map((size, index) => ({ size, index })).sort((a, b) => a.size - b.size);
  let remaining = budget.maxBatchBytes;
  let left = ascending.length;
  for (const { size, index } of ascending) {
    const equal = Math.max(floor, Math.floor(Math.max(0, remaining) / left));
    // A result that fits its equal part keeps all of itself: its share is its size (or the
    // floor, when larger), and only what it really occupies is taken from the budget.
    shares[index] = size <= equal ? Math.max(size, floor) : equal;
    remaining -= Math.min(size, equal);
    left--;
  }
  return shares;
}
