import type {
  EventStore,
  ReadAllOptions,
  ReadStreamOptions,
  StoredEvent,
} from "../../app/ports/event-store.js";
import type { DomainEvent } from "../../domain/events.js";
import { type AppendGroup, BatchingAppender, type GroupCommitOptions } from "./batching-appender.js";

/**
 * What every event store shares, in memory or SQL: appends queue in a `BatchingAppender`, whose
 * group commit, commit marks, failure state and retries answer for the store. A store supplies how
 * one batch is written (whole or not at all) and how events are read back.
 */
export abstract class GroupCommitEventStore implements EventStore {
  abstract readonly durable: boolean;
  readonly #appender: BatchingAppender;

  protected constructor(options: GroupCommitOptions) {
    this.#appender = new BatchingAppender((batch, attempt) => this.writeBatch(batch, attempt), options);
  }

  /** Writes one batch, assigning positions and versions; a rejection leaves none of it stored. */
  protected abstract writeBatch(batch: readonly AppendGroup[], attempt: number): Promise<void>;

  abstract readStream(streamId: string, options?: ReadStreamOptions): Promise<StoredEvent[]>;

  abstract readAll(options?: ReadAllOptions): Promise<StoredEvent[]>;

  append(streamId: string, events: readonly DomainEvent[]): void {
    this.#appender.append(streamId, events);
  }

  flush(): Promise<void> {
    return this.#appender.flush();
  }

  appendMark(): number {
    return this.#appender.appendMark();
  }

  whenCommitted(mark: number): true | Promise<boolean> {
    return this.#appender.whenCommitted(mark);
  }

  get commitFailure(): { readonly retryInMs: number } | null {
    return this.#appender.commitFailure;
  }

  retryNow(): void {
    this.#appender.retryNow();
  }

  /** Flushes (see `GroupCommitOptions.closeTimeoutMs`) and refuses appends from then on. */
  close(): Promise<void> {
    return this.#appender.close();
  }
}
