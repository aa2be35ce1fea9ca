/** Items are written together at most this long after the first of them: one write per burst. */
const FLUSH_DELAY_MS = 100;
/** Items kept while writes fail; beyond it the oldest are dropped. */
const MAX_PENDING = 10_000;

export interface BatchedWriterOptions<T> {
  write(batch: readonly T[]): Promise<void>;
  /** A batch was written. */
  onWritten?(count: number): void;
  /** A write failed: the batch is kept for the next one. */
  onFailed?(error: unknown, count: number): void;
  /** The oldest pending items were dropped to stay within the bound. */
  onDropped?(count: number): void;
  /**
   * When set, a failed write is tried again this long after it, and items pushed meanwhile wait
   * for that attempt; when not set, the next item pushed brings the next attempt.
   */
  retryDelayMs?: number;
}

/**
 * Writes items in batches off the caller's path (audit records, compliance lines): one write per
 * burst, one write at a time, failed batches kept in order for the next write, at most 10,000
 * pending, the oldest dropped first.
 */
export class BatchedWriter<T> {
  private pending: T[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly options: BatchedWriterOptions<T>) {}

  push(item: T): void {
    this.pending.push(item);
    if (this.pending.length > MAX_PENDING) {
      this.pending.shift();
      this.options.onDropped?.(1);
    }
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_DELAY_MS);
  }

  /** Writes what is pending; resolves when done (a failure is reported and the items kept). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.writing = this.writing.then(async () => {
      const batch = this.pending;
      if (batch.length === 0) return;
      this.pending = [];
      try {
        await this.options.write(batch);
        this.options.onWritten?.(batch.length);
      } catch (error) {
        const kept = [...batch, ...this.pending];
        if (kept.length > MAX_PENDING) this.options.onDropped?.(kept.length - MAX_PENDING);
        this.pending = kept.slice(-MAX_PENDING);
        this.options.onFailed?.(error, batch.length);
        const retry = this.options.retryDelayMs;
        if (retry !== undefined) this.timer ??= setTimeout(() => void this.flush(), retry).unref();
      }
    });
    return this.writing;
  }

  /** Flushes, then drops any retry timer. */
  async close(): Promise<void> {
    await this.flush();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
