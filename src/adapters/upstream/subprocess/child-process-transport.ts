import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import type { LogSink } from "../../../app/ports/upstream.js";
import { LineSplitter } from "../session/line-splitter.js";
import { StdioMessageReader, writeMessage } from "../session/stdio-framing.js";
import { within } from "../session/within.js";
import {
  installExitGuard,
  registerProcessGroup,
  signalProcessGroup,
  unregisterProcessGroup,
} from "./process-groups.js";

/** How long to wait at each step of stopping a child; the MCP stdio shutdown sequence. */
export interface StopTiming {
  /** After closing stdin: a well-behaved stdio server exits on EOF. 1 s covers a Node or Python exit. */
  stdinGraceMs: number;
  /** After SIGTERM to the group: time for cleanup handlers before SIGKILL. */
  termGraceMs: number;
}

export const DEFAULT_STOP_TIMING: StopTiming = { stdinGraceMs: 1_000, termGraceMs: 3_000 };

/**
 * After SIGKILL, the longest wait for the kernel to report the exit. SIGKILL cannot be caught, so
 * only a process stuck in uninterruptible I/O takes longer; then we give up waiting (its group stays
 * registered, so the exit guard tries once more).
 */
const SIGKILL_WAIT_MS = 5_000;

/**
 * After the child exited, how long stdout and stderr may still deliver what it wrote just before
 * dying (its last response, the error it died of). Bounded because a descendant that left the
 * group may keep a pipe open.
 */
const STDOUT_DRAIN_MS = 200;

export interface ChildProcessTransportOptions {
  /** argv[0] is looked up in PATH of `env`; no shell is involved. */
  argv: readonly string[];
  env: Record<string, string>;
  /** Working directory of the child; the gateway's own when unset. */
  cwd?: string | undefined;
  logs: LogSink;
  stopTiming?: StopTiming | undefined;
  /** Largest message read from stdout; see `DEFAULT_MAX_MESSAGE_BYTES`. */
  maxMessageBytes?: number | undefined;
}

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** `process exited with code 1` / `killed by signal SIGKILL`. */
export function describeExit(exit: ChildExit): string {
  return exit.code !== null ? `process exited with code ${exit.code}` : `killed by signal ${exit.signal}`;
}

/**
 * An MCP client transport over the stdin/stdout of a child process that leads its own process group.
 *
 * Unlike the SDK's `StdioClientTransport`, the child is spawned detached (on POSIX Node calls
 * `setsid`: a new session and process group whose id is the child's pid) and
 * every signal goes to the whole group, so wrappers (`sh -c`, `npx`) cannot leave grandchildren
 * behind. stdout is read in the MCP stdio framing ({@link StdioMessageReader}); stderr is forwarded
 * line by line to the `LogSink`.
 *
 * Guaranteed: `close()` is idempotent and resolves once the child has exited (or ignored SIGKILL for
 * {@link SIGKILL_WAIT_MS}); when the leader exits for any reason, the rest of its group is sent
 * SIGKILL at once; `onclose` fires exactly once, after the exit, and `ended` then resolves with a
 * readable reason. Not guaranteed: descendants that moved to another process group or session.
 */
export class ChildProcessTransport implements Transport {
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];
  onmessage?: Transport["onmessage"];

  /** Resolves once, when the transport is finished, with why (`process exited with code 3`). */
  readonly ended: Promise<string>;

  private child: ChildProcessWithoutNullStreams | undefined;
  private readonly reader: StdioMessageReader;
  private readonly timing: StopTiming;
  private spawned = false;
  private spawnError: NodeJS.ErrnoException | undefined;
  private exit: ChildExit | undefined;
  /** Why we stopped the child ourselves without being asked (broken pipe, oversized message). */
  private cause: string | undefined;
  /**
   * Whether `cause` is the reason whatever the exit status says: a message over the limit is.
   * A broken pipe is not: a crashing child closes its pipes, and its exit status tells more.
   */
  private causeDecides = false;
  /** Whether the stop sequence had to send a signal (the exit status then tells nothing). */
  private signalled = false;
  private stopping: Promise<void> | undefined;
  private finished = false;
  private endReason: string | undefined;
  private resolveEnded: (reason: string) => void = () => {};
  private resolveExited: () => void = () => {};
  private readonly exited: Promise<void>;
  private resolveStdoutClosed: () => void = () => {};
  private readonly stdoutClosed: Promise<void>;
  private resolveStderrClosed: () => void = () => {};
  private readonly stderrClosed: Promise<void>;

  constructor(private readonly options: ChildProcessTransportOptions) {
    this.reader = new StdioMessageReader({
      maxMessageBytes: options.maxMessageBytes,
      logs: options.logs,
      onMessage: (message) => this.onmessage?.(message),
      onOversized: (cause) => this.stopUnasked(cause, true),
    });
    this.timing = options.stopTiming ?? DEFAULT_STOP_TIMING;
    this.ended = new Promise((resolve) => {
      this.resolveEnded = resolve;
    });
    this.exited = new Promise((resolve) => {
      this.resolveExited = resolve;
    });
    this.stdoutClosed = new Promise((resolve) => {
      this.resolveStdoutClosed = resolve;
    });
    this.stderrClosed = new Promise((resolve) => {
      this.resolveStderrClosed = resolve;
    });
  }

  /** The child's pid, which is also its process group id; undefined before start or if spawn failed. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The spawn error (ENOENT, EACCES, ...) when the command could not be started. */
  get spawnFailure(): NodeJS.ErrnoException | undefined {
    return this.spawnError;
  }

  /** How the child exited, once it has. */
  get exitStatus(): ChildExit | undefined {
    return this.exit;
  }

  /** The reason `ended` resolved with, once finished. */
  get closedReason(): string | undefined {
    return this.endReason;
  }

  /**
   * Spawns the child. Once it was started, a start while it runs is a no-op (the revision probe
   * starts it before a session's client connects to it); after it ended, an error.
   */
  async start(): Promise<void> {
    if (this.child && !this.finished) return this.spawnSettled;
    if (this.child || this.finished) throw new Error("transport already started");
    const [command, ...args] = this.options.argv;
    if (!command) throw new Error("subprocess server needs a non-empty command");
    installExitGuard();
    const child = spawn(command, args, {
      env: this.options.env,
      ...(this.options.cwd !== undefined && { cwd: this.options.cwd }),
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
      shell: false,
      windowsHide: true,
    });
    this.child = child;
    // The pid exists synchronously when the fork succeeded: register before anything can go wrong.
    if (child.pid !== undefined) registerProcessGroup(child.pid);
    this.wireOutput(child);
    child.on("exit", (code, signal) => this.handleExit(child, { code, signal }));
    this.spawnSettled = new Promise<void>((resolve, reject) => {
      child.on("error", (error: NodeJS.ErrnoException) => {
        if (this.spawned) {
          this.onerror?.(error);
          return;
        }
        this.spawnError = error;
        this.resolveExited();
        this.finish();
        reject(error);
      });
      child.once("spawn", () => {
        this.spawned = true;
        resolve();
      });
    });
    await this.spawnSettled;
  }

  /** Settles when the child has spawned or failed to; a close that comes first waits for it. */
  private spawnSettled: Promise<void> | undefined;

  send(message: JSONRPCMessage): Promise<void> {
    return writeMessage(this.child?.stdin, message, !this.finished);
  }

  /** Stops the child and its group (stdin EOF, SIGTERM, SIGKILL); resolves once it has exited. */
  async close(): Promise<void> {
    // A close racing the spawn must not leave the child running once it appears.
    if (this.child && !this.spawned) await this.spawnSettled?.catch(() => undefined);
    if (this.child && this.spawned) await this.stop();
    this.finish();
    await this.ended;
  }

  private wireOutput(child: ChildProcessWithoutNullStreams): void {
    child.stdout.on("data", (chunk: Buffer) => this.handleStdout(chunk));
    child.stdout.on("error", (error) => this.onerror?.(error));
    child.stdout.on("close", () => {
      this.resolveStdoutClosed();
      if (this.spawned && !this.exit) this.stopUnasked("the server closed its stdout");
    });
    child.stdin.on("error", (error: NodeJS.ErrnoException) => {
      this.onerror?.(error);
      if (this.spawned && !this.exit)
        this.stopUnasked(`the server closed its stdin (${error.code ?? "error"})`);
    });
    const splitter = new LineSplitter((line) => this.options.logs.append("stderr", line));
    child.stderr.on("data", (chunk: Buffer) => splitter.push(chunk));
    child.stderr.on("end", () => splitter.end());
    child.stderr.on("close", () => this.resolveStderrClosed());
    child.stderr.on("error", () => {});
  }

  private handleStdout(chunk: Buffer): void {
    if (this.finished || this.cause) return;
    this.reader.push(chunk);
  }

  private handleExit(child: ChildProcessWithoutNullStreams, exit: ChildExit): void {
    this.exit = exit;
    if (child.pid !== undefined) {
      // Whatever is left in the group is an orphan of a dead server: no grace. The leader was just
      // reaped, so its id could in principle be reused; this sweep runs at once (long before the
      // pid counter could wrap) and nothing signals the group after it.
      signalProcessGroup(child.pid, "SIGKILL");
      unregisterProcessGroup(child.pid);
    }
    this.resolveExited();
    void within(Promise.all([this.stdoutClosed, this.stderrClosed]), STDOUT_DRAIN_MS).then(() =>
      this.finish(),
    );
  }

  /** The connection broke while the child lives: stop it the normal way, remembering why. */
  private stopUnasked(cause: string, decides = false): void {
    if (this.cause || this.stopping || this.finished) return;
    this.cause = cause;
    this.causeDecides = decides;
    void this.stop();
  }

  private stop(): Promise<void> {
    this.stopping ??= this.runStopSequence();
    return this.stopping;
  }

  private async runStopSequence(): Promise<void> {
    const child = this.child;
    const pid = child?.pid;
    if (!child || pid === undefined || this.exit) return;
    child.stdin.end();
    if (await within(this.exited, this.timing.stdinGraceMs)) return;
    this.signalled = true;
    signalProcessGroup(pid, "SIGTERM");
    if (await within(this.exited, this.timing.termGraceMs)) return;
    signalProcessGroup(pid, "SIGKILL");
    if (await within(this.exited, SIGKILL_WAIT_MS)) return;
    this.finish();
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.reader.clear();
    this.endReason = this.reason();
    this.resolveEnded(this.endReason);
    this.onclose?.();
  }

  private reason(): string {
    if (!this.child) return "closed before start";
    if (this.spawnError) return `cannot start process (${this.spawnError.code ?? this.spawnError.message})`;
    if (this.cause && (this.causeDecides || this.signalled || !this.exit)) return this.cause;
    if (this.exit) return describeExit(this.exit);
    return "process did not exit after SIGKILL";
  }
}
