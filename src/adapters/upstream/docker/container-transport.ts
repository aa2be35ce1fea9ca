import type { Duplex } from "node:stream";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import type { LogSink } from "../../../app/ports/upstream.js";
import { LineSplitter } from "../session/line-splitter.js";
import { StdioMessageReader, writeMessage } from "../session/stdio-framing.js";
import { within } from "../session/within.js";
import { FrameDemuxer } from "./frame-demuxer.js";
import { type ContainerExit, describeContainerExit } from "./managed-container.js";

/**
 * After the engine reported the exit, how long the attach stream may still deliver what the
 * server wrote just before dying (its last response). The engine closes the stream right after it
 * copied the last output, so this is only a bound.
 */
const STREAM_DRAIN_MS = 500;

/**
 * After the attach stream ended, how long to wait for the engine to report the exit code. Both
 * usually arrive together; without an exit by then the stream was lost while the container may
 * still run, and it is stopped.
 */
const EXIT_REPORT_MS = 2_000;

export interface ContainerTransportOptions {
  /** The hijacked attach connection: raw stdin in, multiplexed stdout/stderr out. */
  readonly stream: Duplex;
  /** Resolves when the container stopped; never rejects. */
  readonly exited: Promise<ContainerExit>;
  /** Stops and removes the container; idempotent, never rejects. */
  readonly dispose: () => Promise<void>;
  readonly logs: LogSink;
  /** Largest message read from stdout; see `DEFAULT_MAX_MESSAGE_BYTES`. */
  readonly maxMessageBytes?: number | undefined;
}

/**
 * An MCP client transport over a container's attach stream: JSON-RPC lines go to stdin, stdout
 * frames carry the answers in the MCP stdio framing ({@link StdioMessageReader}), stderr frames go
 * line by line to the `LogSink`.
 *
 * Reading starts at construction, so stderr written before `initialize` is kept. Guaranteed:
 * `close()` is idempotent and resolves once the container was stopped and removed; `onclose`
 * fires exactly once, after the container exited or the stream broke, and `ended` then resolves
 * with a readable reason (`container exited with code 3`). When the container ends on its own it
 * is removed too; `removed` resolves once that is done.
 */
export class ContainerTransport implements Transport {
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];
  onmessage?: Transport["onmessage"];

  /** Resolves once, when the transport is finished, with why. */
  readonly ended: Promise<string>;

  private readonly reader: StdioMessageReader;
  private readonly demuxer: FrameDemuxer;
  private readonly stderrLines: LineSplitter;
  private exit: ContainerExit | undefined;
  private streamEnded = false;
  private resolveStreamEnded: () => void = () => {};
  private readonly streamEndedPromise: Promise<void>;
  /** Why we stopped the container ourselves without being asked (broken stream, oversized message). */
  private cause: string | undefined;
  private closeRequested = false;
  private finished = false;
  private endReason: string | undefined;
  private resolveEnded: (reason: string) => void = () => {};
  private removal: Promise<void> | undefined;

  constructor(private readonly options: ContainerTransportOptions) {
    this.reader = new StdioMessageReader({
      maxMessageBytes: options.maxMessageBytes,
      logs: options.logs,
      onMessage: (message) => this.onmessage?.(message),
      onOversized: (cause) => this.stopUnasked(cause),
    });
    this.ended = new Promise((resolve) => {
      this.resolveEnded = resolve;
    });
    this.streamEndedPromise = new Promise((resolve) => {
      this.resolveStreamEnded = resolve;
    });
    this.stderrLines = new LineSplitter((line) => options.logs.append("stderr", line));
    this.demuxer = new FrameDemuxer(
      (stream, bytes) => (stream === "stdout" ? this.handleStdout(bytes) : this.handleStderr(bytes)),
      (streamByte) =>
        this.stopUnasked(`the container's output is not multiplexed (stream byte ${streamByte})`),
    );
    const { stream } = options;
    stream.on("data", (chunk: Buffer) => this.demuxer.push(chunk));
    stream.on("end", () => this.handleStreamEnd());
    stream.on("close", () => this.handleStreamEnd());
    stream.on("error", (error) => {
      this.onerror?.(error);
      this.handleStreamEnd();
    });
    void options.exited.then((exit) => this.handleExit(exit));
  }

  /** How the container ended, once known. */
  get exitStatus(): ContainerExit | undefined {
    return this.exit;
  }

  /** The reason `ended` resolved with, once finished. */
  get closedReason(): string | undefined {
    return this.endReason;
  }

  /** Resolves once the container is removed (after `close()`, or after it ended on its own). */
  get removed(): Promise<void> {
    return this.removal ?? this.ended.then(() => this.removal);
  }

  async start(): Promise<void> {
    // Reading began at construction; nothing else to do.
  }

  send(message: JSONRPCMessage): Promise<void> {
    return writeMessage(this.options.stream, message, !this.finished && !this.cause);
  }

  /** Stops and removes the container; resolves once it is removed. */
  async close(): Promise<void> {
    this.closeRequested = true;
    await this.remove();
    this.finish();
    await this.ended;
  }

  private handleStdout(bytes: Buffer): void {
    if (this.finished || this.cause) return;
    this.reader.push(bytes);
  }

  private handleStderr(bytes: Buffer): void {
    this.stderrLines.push(bytes);
  }

  private handleStreamEnd(): void {
    if (this.streamEnded) return;
    this.streamEnded = true;
    this.stderrLines.end();
    this.resolveStreamEnded();
    if (this.exit || this.closeRequested || this.finished) return;
    void within(this.options.exited, EXIT_REPORT_MS).then((reported) => {
      if (!reported) this.stopUnasked("lost the container's attach stream while it was running");
    });
  }

  private handleExit(exit: ContainerExit): void {
    this.exit = exit;
    void within(this.streamEndedPromise, STREAM_DRAIN_MS).then(() => this.finish());
  }

  /** The connection broke while the container may run: stop and remove it, remembering why. */
  private stopUnasked(cause: string): void {
    if (this.cause || this.closeRequested || this.finished) return;
    this.cause = cause;
    void this.remove().then(() => this.finish());
  }

  private remove(): Promise<void> {
    this.removal ??= this.options.dispose();
    return this.removal;
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.reader.clear();
    this.endReason = this.reason();
    this.options.stream.destroy();
    // A container that ended on its own is removed too: AutoRemove is off so its exit code could be read.
    void this.remove();
    this.resolveEnded(this.endReason);
    this.onclose?.();
  }

  private reason(): string {
    if (this.cause) return this.cause;
    if (this.exit) return describeContainerExit(this.exit);
    return "closed";
  }
}
