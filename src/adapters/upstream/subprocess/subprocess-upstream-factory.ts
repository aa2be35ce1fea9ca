import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type {
  ConnectOptions,
  LogSink,
  UpstreamConnection,
  UpstreamFactory,
} from "../../../app/ports/upstream.js";
import type { ServerSpec } from "../../../domain/server/server-spec.js";
import { ChildProcessTransport, describeExit, type StopTiming } from "./child-process-transport.js";
import { SubprocessConnection } from "./subprocess-connection.js";

export interface SubprocessUpstreamOptions {
  /** Sent as `clientInfo` in `initialize`; pass the gateway's name and version. */
  clientInfo?: { name: string; version: string };
  /** Waits of the stop sequence; defaults to `DEFAULT_STOP_TIMING`. */
  stopTiming?: StopTiming;
  /** Largest unread stdout kept; defaults to `DEFAULT_MAX_MESSAGE_BYTES`. */
  maxMessageBytes?: number;
}

/**
 * Opens `mode: subprocess` servers: runs `spec.command` (an argv list, no shell) with `spec.env`
 * over the SDK's default environment (HOME, LOGNAME, PATH, SHELL, TERM, USER: nothing else of the
 * gateway's environment leaks), in its own process group, and completes MCP `initialize`.
 *
 * Guaranteed: `connect` settles within `options.timeoutMs` (plus the stop sequence on failure);
 * on failure nothing of the child's process group is left running and the Error message is safe
 * to show (`command not found: foo`, `process exited with code 1 before initialize`,
 * `initialize timed out after 10000 ms`). Not guaranteed: that a server behaves after initialize.
 */
export class SubprocessUpstreamFactory implements UpstreamFactory {
  private readonly clientInfo: { name: string; version: string };

  constructor(private readonly options: SubprocessUpstreamOptions = {}) {
    this.clientInfo = options.clientInfo ?? { name: "airlock", version: "0.0.0" };
  }

  async connect(spec: ServerSpec, logs: LogSink, options: ConnectOptions): Promise<UpstreamConnection> {
    if (spec.mode !== "subprocess") throw new Error(`cannot run mode '${spec.mode}' as a subprocess`);
    const argv = spec.command ?? [];
    const command = argv[0];
    if (!command) throw new Error("subprocess server needs a non-empty command");
    const transport = new ChildProcessTransport({
      argv,
      env: { ...getDefaultEnvironment(), ...spec.env },
      logs,
      stopTiming: this.options.stopTiming,
      maxMessageBytes: this.options.maxMessageBytes,
    });
    const client = new Client(this.clientInfo, { capabilities: {} });
    // Failures reach callers through rejected requests and onClosed; nothing to do with them here.
    client.onerror = () => {};
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    let aborted = false;
    const onAbort = () => {
      aborted = true;
      rejectDeadline(new Error("aborted"));
    };
    let rejectDeadline: (error: Error) => void = () => {};
    const deadline = new Promise<never>((_, reject) => {
      rejectDeadline = reject;
      timer = setTimeout(() => {
        timedOut = true;
        reject(new Error("deadline"));
      }, options.timeoutMs);
    });
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      await Promise.race([client.connect(transport, { timeout: options.timeoutMs }), deadline]);
    } catch (error) {
      const message = aborted
        ? "start abandoned: the server was stopped"
        : connectFailure(error, transport, command, options.timeoutMs, timedOut);
      await transport.close();
      throw new Error(message);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    }
    return new SubprocessConnection(client, transport);
  }
}

/** The safe-to-show reason a connect failed; computed before the child is stopped. */
function connectFailure(
  error: unknown,
  transport: ChildProcessTransport,
  command: string,
  timeoutMs: number,
  timedOut: boolean,
): string {
  const spawnError = transport.spawnFailure;
  if (spawnError?.code === "ENOENT") return `command not found: ${command}`;
  if (spawnError?.code === "EACCES") return `permission denied: ${command}`;
  if (spawnError) return `cannot start ${command}: ${spawnError.code ?? spawnError.message}`;
  const exit = transport.exitStatus;
  if (exit) return `${describeExit(exit)} before initialize`;
  if (timedOut || (error instanceof McpError && error.code === ErrorCode.RequestTimeout))
    return `initialize timed out after ${timeoutMs} ms`;
  if (transport.closedReason) return `${transport.closedReason} before initialize`;
  return `initialize failed: ${error instanceof Error ? error.message : String(error)}`;
}
