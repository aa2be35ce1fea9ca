const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

export interface NdjsonReaderOptions {
  /** Longest line accepted, in bytes, without its `\n`. */
  readonly maxLineBytes: number;
  /** Receives each complete line, decoded as UTF-8, without its `\n` or `\r\n`. */
  readonly onLine: (line: string) => void;
  /** Called once, as soon as the line being received is longer than `maxLineBytes`. */
  readonly onOverflow: () => void;
}

/**
 * Splits a byte stream into newline-delimited lines, in time linear in the stream's size.
 *
 * The bytes of the line being received are kept as a list of chunks; only each new chunk is scanned
 * for `\n`, and a line's chunks are joined once, when its newline arrives. (The SDK's `ReadBuffer`
 * concatenates everything buffered on every chunk, which is quadratic in the size of one large
 * message.) Characters cut between chunks are decoded whole, since lines are decoded after joining.
 *
 * Guaranteed: lines arrive in order; after an overflow nothing more is emitted (the stream lost its
 * framing for good; the caller stops the peer). `clear()` drops the partial line and ends the
 * `push()` in progress, if `onLine` called it. Not guaranteed: an empty line is emitted as `""`,
 * the caller decides what it means.
 */
export class NdjsonReader {
  private parts: Buffer[] = [];
  private pendingBytes = 0;
  private overflowed = false;
  /** Bumped by `clear()`, so that a `push()` whose `onLine` cleared the reader stops. */
  private epoch = 0;

  constructor(private readonly options: NdjsonReaderOptions) {}

  push(chunk: Buffer): void {
    if (this.overflowed) return;
    const epoch = this.epoch;
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) break;
      if (this.pendingBytes + (newline - start) > this.options.maxLineBytes) {
        this.overflow();
        return;
      }
      const line = this.take(chunk.subarray(start, newline));
      start = newline + 1;
      this.options.onLine(line);
      if (epoch !== this.epoch || this.overflowed) return;
    }
    if (start >= chunk.length) return;
    this.parts.push(start === 0 ? chunk : chunk.subarray(start));
    this.pendingBytes += chunk.length - start;
    if (this.pendingBytes > this.options.maxLineBytes) this.overflow();
  }

  /** Drops the partial line. */
  clear(): void {
    this.epoch += 1;
    this.parts = [];
    this.pendingBytes = 0;
  }

  /** The pending chunks and `tail` as one decoded line, without a trailing `\r`. */
  private take(tail: Buffer): string {
    const bytes =
      this.parts.length === 0 ? tail : Buffer.concat([...this.parts, tail], this.pendingBytes + tail.length);
    this.parts = [];
    this.pendingBytes = 0;
    const end =
      bytes.length > 0 && bytes[bytes.length - 1] === CARRIAGE_RETURN ? bytes.length - 1 : bytes.length;
    return bytes.toString("utf8", 0, end);
  }

  private overflow(): void {
    this.clear();
    this.overflowed = true;
    this.options.onOverflow();
  }
}
