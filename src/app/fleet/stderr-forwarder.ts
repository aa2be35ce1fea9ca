import { TokenBucket } from "../../domain/limits/token-bucket.js";
import { redactOutputLine, secretValuesOf } from "../../domain/server/output-redaction.js";
import type { ServerSpec } from "../../domain/server/server-spec.js";
import type { Clock } from "../ports/clock.js";
import type { Logger } from "../ports/logger.js";
import { GATEWAY_NOTE_PREFIX } from "./log-ring.js";
import type { ManagedServer } from "./managed-server.js";

/**
 * Lines per server written to the gateway's log: a burst of 200 (a stack trace at start-up), then
 * 50 a second. A chatty child beyond that would bury the gateway's own lines and cost a write per
 * line; the lines past it are dropped and counted.
 */
export const FORWARD_RATE = { burst: 200, rps: 50 } as const;

export interface StderrForwarderDeps {
  logger: Logger;
  clock: Clock;
  /**
   * JSON log lines carry the server's id as the `mcp_server_id` field; readable lines start with
   * `[<id>]`, which a field at the end of the line would not make plain.
   */
  json: boolean;
}

/**
 * `logging.forward_server_stderr`: each stderr line a child server writes also goes to the
 * gateway's log at INFO, labelled with the server, redacted as a failed start's lines are
 * ({@link redactOutputLine}). It follows the server's log ring, which keeps every line as before:
 * nothing here reads the child's pipe, so the child is never held up. Over {@link FORWARD_RATE}
 * lines are dropped; the next line forwarded is preceded by one WARN saying how many.
 */
export class StderrForwarder {
  /** Secrets of a spec, computed once per spec (a server's spec is replaced, never changed). */
  private readonly secrets = new WeakMap<ServerSpec, readonly string[]>();

  constructor(private readonly deps: StderrForwarderDeps) {}

  /** Forwards what `server` writes from now on, for as long as its log ring lives. */
  attach(server: ManagedServer): void {
    const { clock, logger } = this.deps;
    const bucket = new TokenBucket(FORWARD_RATE, clock.monotonic());
    let dropped = 0;
    server.logs.watch((line) => {
      if (line.stream !== "stderr" || line.content.startsWith(GATEWAY_NOTE_PREFIX)) return;
      if (!bucket.tryTake(clock.monotonic())) {
        dropped++;
        return;
      }
      if (dropped > 0) {
        logger.warn(
          { mcp_server_id: server.id, dropped },
          "MCP server stderr lines dropped: more than the forwarding rate",
        );
        dropped = 0;
      }
      const text = redactOutputLine(line.content, this.secretsOf(server.spec));
      if (this.deps.json) logger.info({ mcp_server_id: server.id, stream: "stderr" }, text);
      else logger.info({}, `[${server.id}] ${text}`);
    });
  }

  private secretsOf(spec: ServerSpec): readonly string[] {
    let values = this.secrets.get(spec);
    if (!values) {
      values = secretValuesOf(spec);
      this.secrets.set(spec, values);
    }
    return values;
  }
}
