/**
 * Decisions "gateway_call and continuations": `cont_<batch_id>_<call_index>_<8 hex>`. The hex part
 * comes from a secure random source (passed in), so an id cannot be guessed from a batch id.
 */
export function continuationId(batchId: string, callIndex: number, randomHex8: string): string {
  if (!/^[0-9a-f]{8}$/.test(randomHex8))
    throw new RangeError("the random part must be 8 lowercase hex digits");
  return `cont_${batchId}_${callIndex}_${randomHex8}`;
}

/**
 * What a continuation id can look like: batch ids are UUIDs, indexes are below the batch limit.
 * Anything else is answered "not found" without asking the store.
 */
const CONTINUATION_ID = /^cont_[0-9A-Za-z-]{1,64}_\d{1,6}_[0-9a-f]{8}$/;

export function isContinuationId(value: string): boolean {
  return CONTINUATION_ID.test(value);
}
