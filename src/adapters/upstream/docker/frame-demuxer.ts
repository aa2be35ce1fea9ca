/** Size of the header before each frame of a multiplexed (non-TTY) attach stream. */
const HEADER_BYTES = 8;

/**
 * Splits the engine's multiplexed attach stream into stdout and stderr bytes.
 *
 * Each frame is an 8-byte header `[stream, 0, 0, 0, size (uint32 big-endian)]` followed by `size`
 * bytes; stream 1 is stdout, 2 is stderr, 0 (stdin echo) counts as stdout as in Docker's own
 * `stdcopy`. Headers and payloads may be cut anywhere by the transport: only a partial header is
 * kept between chunks, payload bytes are passed on as they arrive, so a large frame is never
 * buffered whole.
 *
 * An unknown stream byte means the stream is not multiplexed (a TTY container) or lost its framing;
 * `onCorrupt` is called once and everything after is ignored.
 */
export class FrameDemuxer {
  private header = Buffer.alloc(0);
  private remaining = 0;
  private target: "stdout" | "stderr" = "stdout";
  private corrupt = false;

  constructor(
    private readonly emit: (stream: "stdout" | "stderr", bytes: Buffer) => void,
    private readonly onCorrupt: (streamByte: number) => void,
  ) {}

  push(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length && !this.corrupt) {
      if (this.remaining > 0) {
        const end = Math.min(chunk.length, offset + this.remaining);
        this.remaining -= end - offset;
        this.emit(this.target, chunk.subarray(offset, end));
        offset = end;
        continue;
      }
      const needed = HEADER_BYTES - this.header.length;
      const part = chunk.subarray(offset, offset + needed);
      this.header = this.header.length === 0 ? Buffer.from(part) : Buffer.concat([this.header, part]);
      offset += part.length;
      if (this.header.length < HEADER_BYTES) return;
      const streamByte = this.header[0] ?? -1;
      const size = this.header.readUInt32BE(4);
      this.header = Buffer.alloc(0);
      if (streamByte === 2) this.target = "stderr";
      else if (streamByte === 0 || streamByte === 1) this.target = "stdout";
      else {
        this.corrupt = true;
        this.onCorrupt(streamByte);
        return;
      }
      this.remaining = size;
    }
  }
}
