import type { Writable } from "node:stream";
import { type JSONRPCMessage, parseJSONRPCMessage, serializeMessage } from "@modelcontextprotocol/client";
import type { LogSink } from "../../../app/ports/upstream.js";
import { isPlainJsonRpc, isPlainPayload } from "../../../domain/plain-json-rpc.js";
import { NdjsonReader } from "./ndjson-reader.js";

/**
 * Largest message read from a server, in bytes. Well above the 10 MB per-call result limit (plus
 * JSON-RPC framing and escaping), so the gateway's own `ResponseTooLarge` check, not the pipe,
 * decides about big results. A server exceeding it is stopped.
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

export interface StdioMessageReaderOptions {
  /** Defaults to {@link DEFAULT_MAX_MESSAGE_BYTES}. */
  readonly maxMessageBytes?: number | undefined;
  /** Told about stdout lines that are not JSON-RPC (they are skipped). */
  readonly logs: LogSink;
  readonly onMessage: (message: JSONRPCMessage) => void;
  /** The server sent a message over the limit; `cause` says so, readably. Nothing is read after. */
  readonly onOversized: (cause: string) => void;
}

/**
 * Reads the MCP stdio framing from a server's output (the stdout of a child process, the stdout
 * frames of a container): one JSON-RPC message per line, read in linear time (see
 * {@link NdjsonReader}). A line that is not JSON-RPC is reported to the log sink and skipped.
 */
export class StdioMessageReader {
  private readonly lines: NdjsonReader;

  constructor(private readonly options: StdioMessageReaderOptions) {
    const maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.lines = new NdjsonReader({
      maxLineBytes: maxBytes,
      onLine: (line) => this.dispatch(line),
      onOverflow: () => options.onOversized(`the server sent a message larger than ${maxBytes} bytes`),
    });
  }

  push(chunk: Buffer): void {
    this.lines.push(chunk);
  }

  /** Drops a partial message (the transport finished). */
  clear(): void {
    this.lines.clear();
  }

  private dispatch(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = readLine(line);
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      this.options.logs.append("stdout", `ignored a stdout line that is not JSON-RPC: ${text}`);
      return;
    }
    this.options.onMessage(message);
  }
}

/** The keys of a JSON-RPC result response (the SDK's schema is strict). */
const RESULT_KEYS = new Set(["jsonrpc", "id", "result"]);

/**
 * One line of output as the SDK's `deserializeMessage` reads it (it throws on what is not
 * JSON-RPC). A result without `_meta` and without an own `__proto__` key (the parts the schema could
 * change), which is what nearly every line is, is checked in place; anything else goes through the
 * SDK's schema.
 */
function readLine(line: string): JSONRPCMessage {
  const value: unknown = JSON.parse(line);
  return isPlainResult(value) ? value : parseJSONRPCMessage(value);
}

function isPlainResult(value: unknown): value is JSONRPCMessage {
  return isPlainJsonRpc(value, RESULT_KEYS) && "id" in value && isPlainPayload(value.result);
}

/**
 * Writes one message in the stdio framing. Rejects with `Not connected` (the SDK's wording) when
 * the transport is no longer `connected` or the stream cannot be written; otherwise resolves once
 * the bytes were handed to the stream, so a slow reader applies backpressure.
 */
export function writeMessage(
  stream: Writable | undefined,
  message: JSONRPCMessage,
  connected: boolean,
): Promise<void> {
  if (!stream || !connected || !stream.writable) return Promise.reject(new Error("Not connected"));
  coalesceWrites(stream);
  return new Promise((resolve, reject) => {
    stream.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()));
  });
}

/** Streams holding back their writes until the current turn of the event loop ends. */
const holding = new WeakSet<Writable>();

/**
 * Holds a stream's writes until the event loop has run every callback that is ready (the calls
 * of concurrent clients arrive in one turn), then writes them at once: one system call, and one
 * wake-up of the server, for all the messages of that turn instead of one per message. A lone
 * message waits only for the end of the turn it was written in.
 */
function coalesceWrites(stream: Writable): void {
  if (holding.has(stream)) return;
  holding.add(stream);
  stream.cork();
  setImmediate(() => {
    holding.delete(stream);
    stream.uncork();
  });
}
