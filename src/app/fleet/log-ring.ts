import type { LogSink } from "../ports/upstream.js";

/** Starts a line the gateway writes into a server's log (a failed start, a lost connection). */
export const GATEWAY_NOTE_PREFIX = "[airlock] ";

export interface LogLine {
  stream: "stderr" | "stdout";
  content: string;
  /** Epoch seconds. */
  recorded_at: number;
}

/**
 * A bounded ring of the lines one server wrote outside the protocol. Memory per server is capped:
 * the oldest line is dropped when full, and a line longer than the cap is cut.
 */
export class LogRing implements LogSink {
  private readonly lines: LogLine[] = [];
  private start = 0;
  /** Lines appended since the ring was made, kept or not: marks a point to read from (`since`). */
  private appended = 0;
  private readonly watchers = new Set<(line: LogLine) => void>();

  constructor(
    private readonly capacity: number,
    private readonly nowMs: () => number,
    private readonly maxLineChars = 4096,
  ) {}

  append(stream: "stderr" | "stdout", line: string): void {
    const entry: LogLine = {
      stream,
      content: line.length > this.maxLineChars ? line.slice(0, this.maxLineChars) : line,
      recorded_at: this.nowMs() / 1000,
    };
    if (this.lines.length < this.capacity) {
      this.lines.push(entry);
    } else {
      this.lines[this.start] = entry;
      this.start = (this.start + 1) % this.capacity;
    }
    this.appended++;
    for (const watcher of this.watchers) watcher(entry);
  }

  /** A mark of the ring's position now, for {@link since}. */
  mark(): number {
    return this.appended;
  }

  /** The lines appended after `mark` that the ring still holds, oldest first. */
  since(mark: number): LogLine[] {
    return this.tail(Math.min(this.appended - mark, this.lines.length));
  }

  /**
   * Calls `watcher` with every line appended from now on, synchronously (it must not block or
   * throw), until the returned function is called.
   */
  watch(watcher: (line: LogLine) => void): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  /** The last `count` lines, oldest first. */
  tail(count: number): LogLine[] {
    const ordered = [...this.lines.slice(this.start), ...this.lines.slice(0, this.start)];
    return count >= ordered.length ? ordered : ordered.slice(ordered.length - count);
  }
}
