import { StringDecoder } from "node:string_decoder";

/**
 * The longest log line kept whole, in UTF-16 characters. A server that writes without ever ending
 * a line would otherwise grow this buffer without bound; past this size the text so far is emitted
 * as a line of its own. 16 Ki characters is far above any real log line.
 */
export const MAX_LINE_CHARS = 16 * 1024;

/**
 * Turns text, or UTF-8 bytes, into lines (without the `\n` or `\r\n`): stderr of a child or a
 * container, an image build's progress. Feed it with `push`, then call `end` once the stream ended
 * to emit a last unterminated line. Bytes are decoded across chunks, so a character cut between two
 * chunks arrives whole.
 */
export class LineSplitter {
  private pending = "";
  private readonly decoder = new StringDecoder("utf8");

  constructor(private readonly emit: (line: string) => void) {}

  push(chunk: string | Buffer): void {
    let text = this.pending + (typeof chunk === "string" ? chunk : this.decoder.write(chunk));
    let newline = text.indexOf("\n");
    while (newline !== -1) {
      this.emitLine(text.slice(0, newline));
      text = text.slice(newline + 1);
      newline = text.indexOf("\n");
    }
    while (text.length > MAX_LINE_CHARS) {
      this.emit(text.slice(0, MAX_LINE_CHARS));
      text = text.slice(MAX_LINE_CHARS);
    }
    this.pending = text;
  }

  end(): void {
    this.push(this.decoder.end());
    if (this.pending.length > 0) this.emitLine(this.pending);
    this.pending = "";
  }

  private emitLine(raw: string): void {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.length <= MAX_LINE_CHARS) {
      this.emit(line);
      return;
    }
    for (let start = 0; start < line.length; start += MAX_LINE_CHARS) {
      this.emit(line.slice(start, start + MAX_LINE_CHARS));
    }
  }
}
