import { type GatewayError, storeUnavailable } from "../domain/errors.js";
import type { EventStore } from "./ports/event-store.js";

/**
 * `event_store.commit: before_answer` (the default): an answer leaves the gateway only once the
 * events of what it answers are committed, so every call a client saw succeed is recorded even if
 * the process dies right after. Composition builds it for a durable event store only; absent (with
 * `after_answer`, or the memory store, which has nothing to wait for) answers go out at once.
 *
 * Guaranteed: `answer(work)` settles only after every event appended before `work` settled is
 * committed, whatever `work`'s outcome; when that cannot happen within the store's commit wait,
 * it answers `StoreUnavailableError` instead (the events stay queued and are recorded once the
 * store is back). While the store is known to be failing, `answer` refuses before `work` starts,
 * so nothing runs that cannot be recorded.
 * Not guaranteed: that `work` did not run when the answer is `StoreUnavailableError` after it
 * started (the upstream may have served the call; only its record is late).
 */
export class CommitBeforeAnswer {
  constructor(private readonly store: EventStore) {}

  /** Runs `work` and answers its outcome once its events are committed (see the class). */
  async answer<T>(work: () => Promise<T>): Promise<T> {
    const failing = this.store.commitFailure;
    if (failing) throw unavailable(failing.retryInMs);
    let result: T;
    try {
      result = await work();
    } catch (error) {
      // A failure is an answer too: its events (ToolInvocationFailed) are committed first.
      await this.committed();
      throw error;
    }
    await this.committed();
    return result;
  }

  /** Everything appended so far is committed; throws StoreUnavailableError once the wait ran out. */
  private async committed(): Promise<void> {
    const done = this.store.whenCommitted(this.store.appendMark());
    if (done === true || (await done)) return;
    throw unavailable(this.store.commitFailure?.retryInMs ?? 0);
  }
}

/** Retry after the store's next attempt, in whole seconds, at least 1 (`Retry-After` is in seconds). */
function unavailable(retryInMs: number): GatewayError {
  return storeUnavailable("event store", Math.max(1, Math.ceil(retryInMs / 1000)));
}
