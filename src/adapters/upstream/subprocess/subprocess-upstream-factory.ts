import { stat } from "node:fs/promises";
import { type Client, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import {
  type ConnectOptions,
  type LogSink,
  type UpstreamConnection,
  type UpstreamFactory,
  UpstreamStartFailure,
} from "../../../app/ports/upstream.js";
import type { ServerSpec } from "../../../domain/server/server-spec.js";
import { ABANDONED_MESSAGE, ConnectDeadline } from "../session/connect-deadline.js";
import { errorText } from "../session/error-text.js";
import { type ClientInfo, recordProtocolVersion } from "../session/mcp-session-connection.js";
import { openAtRevision, revisionChoice, StatelessRefused } from "../session/revision-choice.js";
import type { StatelessUpstream } from "../session/stateless-upstream.js";
import { ChildProcessTransport, describeExit, type StopTiming } from "./child-process-transport.js";
import { SubprocessConnection } from "./subprocess-connection.js";

export interface SubprocessUpstreamOptions {
  /** Sent as `clientInfo` in `initialize`; pass the gateway's name and version. */
  clientInfo?: ClientInfo;
  /**
   * The part of the gateway's environment every child inherits, under `spec.env`: pass
   * `EnvSettings.childBaseEnv` (HOME, LOGNAME, PATH, SHELL, TERM, USER, as the MCP SDK's stdio
   * transport inherits them). Defaults to nothing: a child then sees only `spec.env`, and a command
   * without a slash is looked up in the system's default PATH.
   */
  baseEnv?: Readonly<Record<string, string>>;
  /** Waits of the stop sequence; defaults to `DEFAULT_STOP_TIMING`. */
  stopTiming?: StopTiming;
  /** Largest message read from a child's stdout; defaults to `DEFAULT_MAX_MESSAGE_BYTES`. */
  maxMessageBytes?: number;
}

/**
 * Opens `mode: subprocess` servers: runs `spec.command` (an argv list, no shell) with `spec.env`
 * over `baseEnv` (nothing else of the gateway's environment leaks), in `spec.cwd` when set (else
 * the gateway's working directory; a relative command or script path is resolved there), in its own
 * process group, and completes MCP `initialize`.
 *
 * Guaranteed: `connect` settles within `options.timeoutMs` (plus the stop sequence on failure), or
 * soon after `options.signal` aborts (`start abandoned: the server was stopped`); on failure nothing
 * of the child's process group is left running and the Error message is safe to show (`command not
 * found: foo`, `process exited with code 1 before initialize`, `initialize timed out after 10000
 * ms`), never naming the working directory. Not guaranteed: that a server behaves after initialize.
 */
export class SubprocessUpstreamFactory implements UpstreamFactory {
  private readonly baseEnv: Readonly<Record<string, string>>;

  constructor(private readonly options: SubprocessUpstreamOptions = {}) {
    this.baseEnv = options.baseEnv ?? {};
  }

  async connect(spec: ServerSpec, logs: LogSink, options: ConnectOptions): Promise<UpstreamConnection> {
    if (spec.mode !== "subprocess") throw new Error(`cannot run mode '${spec.mode}' as a subprocess`);
    const argv = spec.command ?? [];
    const command = argv[0];
    if (!command) throw new Error("subprocess server needs a non-empty command");
    const transport = new ChildProcessTransport({
      argv,
      env: { ...this.baseEnv, ...spec.env },
      cwd: spec.cwd,
      logs,
      stopTiming: this.options.stopTiming,
      maxMessageBytes: this.options.maxMessageBytes,
    });
    recordProtocolVersion(transport);
    const deadline = new ConnectDeadline(options);
    let opened: { client: Client; stateless?: StatelessUpstream | undefined };
    try {
      const revision = revisionChoice(spec.options);
      opened = await deadline.race(
        openAtRevision(transport, revision, this.options.clientInfo, options.timeoutMs),
      );
    } catch (error) {
      const spawnError = transport.spawnFailure;
      const message = deadline.abandoned
        ? ABANDONED_MESSAGE
        : spawnError
          ? await spawnFailure(spawnError, command, spec.cwd)
          : error instanceof StatelessRefused
            ? error.message
            : connectFailure(error, transport, deadline.timedOut, options.timeoutMs);
      // Read before the close: an exit the stop sequence caused says nothing of the server.
      const exit = spawnError || deadline.abandoned ? undefined : transport.exitStatus;
      await transport.close();
      if (exit) throw new UpstreamStartFailure(message, exit);
      throw new Error(message);
    } finally {
      deadline.dispose();
    }
    return new SubprocessConnection(opened.client, transport, opened.stateless);
  }
}

/** The safe-to-show reason the command could not be started. */
async function spawnFailure(
  error: NodeJS.ErrnoException,
  command: string,
  cwd: string | undefined,
): Promise<string> {
  // A missing working directory fails the spawn with the same ENOENT as a missing command. The
  // path comes from the configuration; the caller only learns that it is unusable.
  if (cwd !== undefined && !(await isDirectory(cwd)))
    return `cannot start ${command}: its working directory is missing or not a directory`;
  if (error.code === "ENOENT") return `command not found: ${command}`;
  if (error.code === "EACCES") return `permission denied: ${command}`;
  return `cannot start ${command}: ${error.code ?? error.message}`;
}

/** The safe-to-show reason a started child did not initialize; computed before it is stopped. */
function connectFailure(
  error: unknown,
  transport: ChildProcessTransport,
  timedOut: boolean,
  timeoutMs: number,
): string {
  const exit = transport.exitStatus;
  if (exit) return `${describeExit(exit)} before initialize`;
  if (timedOut || (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout))
    return `initialize timed out after ${timeoutMs} ms`;
  if (transport.closedReason) return `${transport.closedReason} before initialize`;
  return `initialize failed: ${errorText(error)}`;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
