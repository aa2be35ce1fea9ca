import type { Readable, Writable } from "node:stream";
import type { JSONRPCMessage, RequestId, Transport } from "@modelcontextprotocol/server";
import { jsonDepthRefusal, jsonTextNestsDeeper } from "../../domain/limits/json-depth.js";
import {
  answeredRequest,
  isRequestMessage,
  messageText,
  readableRequestId,
  readMessage,
} from "./jsonrpc-message.js";

/** The longest line read as one message (the MCP SDK's stdio limit). */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;
const NEWLINE = 0x0a;

/**
 * The MCP tool surface's stdio transport: one JSON-RPC message per line on stdin, one per line on
 * stdout.
 *
 * - A line that cannot be read is answered and the next lines are read as usual (a blank line is
 *   skipped): -32700 for one that is not JSON, -32600 for JSON that is no JSON-RPC message or
 *   nests deeper than `http.max_json_depth` (with the line's id when it has one), and for a line
 *   longer than {@link MAX_LINE_BYTES}, whose bytes are skipped to its end.
 * - `ended` resolves when the client is gone: stdin ended, or stdout cannot be written (the client
 *   stopped reading); nothing is written after that.
 * - `stopReading()` takes no more lines; `drained()` resolves once every request read so far is
 *   answered, so a shutdown can let requests in flight finish.
 */
export class StdioTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly ended: Promise<void>;
  private end!: () => void;
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;
  private broken = false;
  private closed = false;
  /** Requests read and not yet answered, by id (a client may reuse an id while one is open). */
  private readonly pending = new Map<RequestId, number>();
  private openRequests = 0;
  private whenDrained: (() => void)[] = [];

  private readonly input: Readable;
  private readonly output: Writable;
  private readonly maxLineBytes: number;

  constructor(
    private readonly limits: {
      /** Deepest nesting of a message (`http.max_json_depth`); a deeper one answers -32600. */
      maxJsonDepth: number;
      maxLineBytes?: number;
    },
    input: Readable = process.stdin,
    output: Writable = process.stdout,
  ) {
    this.input = input;
    this.output = output;
    this.maxLineBytes = limits.maxLineBytes ?? MAX_LINE_BYTES;
    this.ended = new Promise((resolve) => {
      this.end = resolve;
    });
  }

  async start(): Promise<void> {
    this.input.on("data", this.onData);
    this.input.once("end", this.onEnd);
    this.input.on("error", this.onInputError);
    this.output.on("error", this.onOutputError);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    // An answer settles its request once written (or once nothing can be written any more).
    await this.write(messageText(message));
    const answered = answeredRequest(message);
    if (answered !== undefined) this.settle(answered);
  }

  /** Reads no more lines: what was read is still answered. */
  stopReading(): void {
    this.input.off("data", this.onData);
    this.input.pause();
  }

  /** Resolves once every request read so far has been answered (at once when none is open). */
  drained(): Promise<void> {
    if (this.openRequests === 0 || this.broken) return Promise.resolve();
    return new Promise((resolve) => this.whenDrained.push(resolve));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopReading();
    this.input.off("end", this.onEnd);
    this.input.off("error", this.onInputError);
    this.output.off("error", this.onOutputError);
    this.settleAll();
    this.onclose?.();
  }

  /** stdin ended: a last line without its newline is read too, then the client is gone. */
  private readonly onEnd = (): void => {
    if (this.size > 0 || this.skipping) this.readLine();
    this.end();
  };

  private readonly onData = (chunk: Buffer): void => {
    let start = 0;
    for (let newline = chunk.indexOf(NEWLINE); newline !== -1; newline = chunk.indexOf(NEWLINE, start)) {
      this.keep(chunk.subarray(start, newline));
      this.readLine();
      start = newline + 1;
    }
    this.keep(chunk.subarray(start));
  };

  private keep(part: Buffer): void {
    if (this.skipping || part.length === 0) return;
    if (this.size + part.length > this.maxLineBytes) {
      this.skipping = true;
      this.parts = [];
      this.size = 0;
      return;
    }
    this.parts.push(part);
    this.size += part.length;
  }

  private readLine(): void {
    if (this.skipping) {
      this.skipping = false;
      this.answerError(null, -32600, `Invalid Request: a message must not exceed ${this.maxLineBytes} bytes`);
      return;
    }
    const line = Buffer.concat(this.parts, this.size).toString("utf8").replace(/\r$/, "");
    this.parts = [];
    this.size = 0;
    // A blank line carries no message: nothing to answer.
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.answerError(null, -32700, "Parse error");
      return;
    }
    // Refused before anything walks it: much of that code recurses (`JSON.parse` does not).
    if (jsonTextNestsDeeper(line, this.limits.maxJsonDepth)) {
      this.answerError(
        readableRequestId(value),
        -32600,
        `Invalid Request: message has ${jsonDepthRefusal(this.limits.maxJsonDepth)}`,
      );
      return;
    }
    const message = readMessage(value);
    if (!message) {
      this.answerError(readableRequestId(value), -32600, "Invalid Request");
      return;
    }
    if (isRequestMessage(message)) {
      this.pending.set(message.id, (this.pending.get(message.id) ?? 0) + 1);
      this.openRequests++;
    }
    // A request the client cancelled is not answered (MCP cancellation): it is open no more.
    else if ("method" in message && message.method === "notifications/cancelled") {
      const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof requestId === "string" || typeof requestId === "number") this.settle(requestId);
    }
    this.onmessage?.(message);
  }

  /** Answers a line that was no request read: written as is, no open request settled by it. */
  private answerError(id: RequestId | null, code: number, message: string): void {
    void this.write(JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }));
  }

  /** Writes one line; resolves once stdout took it (at once when it can be written no more). */
  private async write(text: string): Promise<void> {
    if (this.broken || this.output.write(`${text}\n`)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.output.off("drain", done);
        this.output.off("close", done);
        resolve();
      };
      this.output.on("drain", done);
      this.output.on("close", done);
    });
  }

  private settle(id: RequestId): void {
    const open = this.pending.get(id);
    if (open === undefined) return;
    if (open > 1) this.pending.set(id, open - 1);
    else this.pending.delete(id);
    this.openRequests--;
    if (this.openRequests === 0) this.settleAll();
  }

  private settleAll(): void {
    this.pending.clear();
    this.openRequests = 0;
    for (const resolve of this.whenDrained.splice(0)) resolve();
  }

  private readonly onInputError = (error: Error): void => {
    this.onerror?.(error);
    this.end();
  };

  /** The client stopped reading (EPIPE and the like): it is gone, whatever stdin says. */
  private readonly onOutputError = (error: Error): void => {
    if (this.broken) return;
    this.broken = true;
    this.onerror?.(error);
    this.settleAll();
    this.end();
  };
}
